"""A small, fast validator for the JSON Schema subset tool schemas use.

Supported: `type` (one name or a list: object, array, string, integer, number, boolean, null), `properties`,
`required`, `additionalProperties` (bool or schema), `enum`, `const`, `items`, `minimum`, `maximum`,
`exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `pattern`, `anyOf`.
Messages name the property path and read like `"offset: expected integer, got string"`.
`jsonschema` is not used because importing it costs ~150 ms at start-up.
"""

from __future__ import annotations

import re
from typing import Any

_JSON_TYPE_NAMES: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def json_type_name(value: object) -> str:
    """The JSON type of a Python value as the model would call it."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _is_type(value: object, name: str) -> bool:
    if name == "integer":
        # JSON Schema counts 3.0 as an integer; booleans are never numbers.
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "null":
        return value is None
    return True


def validate_args(schema: dict[str, Any], args: object) -> list[str]:
    """All the ways `args` breaks `schema`, as short messages; an empty list means valid."""
    errors: list[str] = []
    _check(schema, args, "", errors)
    return errors


def format_errors(tool_name: str, errors: list[str]) -> str:
    """One message the model can act on, listing every problem with its call to `tool_name`."""
    lines = "\n".join(f"- {e}" for e in errors)
    return f"Invalid input for tool {tool_name}:\n{lines}\nFix the arguments and call {tool_name} again."


def _label(path: str) -> str:
    return path or "input"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check(schema: dict[str, Any], value: object, path: str, errors: list[str]) -> None:
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_type(value, n) for n in names):
            errors.append(f"{_label(path)}: expected {' or '.join(names)}, got {json_type_name(value)}")
            return
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        errors.append(f"{_label(path)}: {value!r} is not one of {allowed}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{_label(path)}: must be {schema['const']!r}")
    if "anyOf" in schema and not any(not validate_args(s, value) for s in schema["anyOf"]):
        errors.append(f"{_label(path)}: does not match any allowed form")
    if isinstance(value, dict):
        _check_object(schema, value, path, errors)
    elif isinstance(value, list):
        _check_array(schema, value, path, errors)
    elif isinstance(value, str):
        _check_string(schema, value, path, errors)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(schema, value, path, errors)


def _check_object(schema: dict[str, Any], value: dict[str, Any], path: str, errors: list[str]) -> None:
    props: dict[str, Any] = schema.get("properties", {})
    for key in schema.get("required", ()):
        if key not in value:
            where = f" in {path}" if path else ""
            errors.append(f"missing required property '{key}'{where}")
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key)
        if sub is not None:
            _check(sub, item, _join(path, key), errors)
        elif extra is False:
            known = ", ".join(props) or "none"
            errors.append(f"unknown property '{_join(path, key)}' (allowed: {known})")
        elif isinstance(extra, dict):
            _check(extra, item, _join(path, key), errors)


def _check_array(schema: dict[str, Any], value: list[Any], path: str, errors: list[str]) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(f"{_label(path)}: expected at least {schema['minItems']} items, got {len(value)}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{_label(path)}: expected at most {schema['maxItems']} items, got {len(value)}")
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            _check(items, item, f"{path}[{i}]", errors)


def _check_string(schema: dict[str, Any], value: str, path: str, errors: list[str]) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        if schema["minLength"] == 1:
            errors.append(f"{_label(path)}: must not be empty")
        else:
            errors.append(f"{_label(path)}: must be at least {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(f"{_label(path)}: must be at most {schema['maxLength']} characters")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{_label(path)}: does not match pattern {schema['pattern']!r}")


def _check_number(schema: dict[str, Any], value: float, path: str, errors: list[str]) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{_label(path)}: must be >= {schema['minimum']}, got {value}")
    if "maximum" in schema and value > schema["maximum"]:
        errors.append(f"{_label(path)}: must be <= {schema['maximum']}, got {value}")
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        errors.append(f"{_label(path)}: must be > {schema['exclusiveMinimum']}, got {value}")
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        errors.append(f"{_label(path)}: must be < {schema['exclusiveMaximum']}, got {value}")


_UNUSABLE = re.compile("[\0\ud800-\udfff]")


def unusable_strings(value: object, path: str = "") -> list[str]:
    """Strings no file name, command line or file text can hold: a NUL byte (the OS cuts there) or a lone
    UTF-16 surrogate (it cannot be encoded). JSON can carry both, so a model can send them; every tool gets a
    clear message instead of a crash deep inside."""
    if isinstance(value, str):
        hit = _UNUSABLE.search(value)
        if hit is None:
            return []
        what = "a NUL byte (\\0)" if hit.group() == "\0" else f"an unpaired surrogate (\\u{ord(hit.group()):04x})"
        return [f"{path or 'value'}: contains {what}, which no path, command or file text can hold"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in unusable_strings(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in unusable_strings(v, f"{path}[{i}]")]
    return []
