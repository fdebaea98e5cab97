"""A server's question (`elicitation/create`, form mode) as fields a front end can ask one by one, and the typed
answers back. The form schema is MCP's restricted one: a flat object of string, number, integer and boolean
properties (a string may be an enum). Anything else cannot be asked faithfully, so it is declined, not guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = ("string", "number", "integer", "boolean")
YES = ("y", "yes", "true", "1")
NO = ("n", "no", "false", "0")


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    title: str
    kind: str
    required: bool
    choices: tuple[str, ...] = ()
    default: str = ""

    def prompt(self) -> str:
        """The question, with what the server wrote made inert (it must not act on the terminal)."""
        from agentcli.visible import one_line

        hint = f" [{'/'.join(self.choices)}]" if self.choices else " [y/n]" if self.kind == "boolean" else ""
        return one_line(f"{self.title}{hint}{'' if self.required else ' (optional)'}: ")


def form_fields(request: dict[str, Any]) -> list[Field] | None:
    """The fields of a form-mode request; None when it is not one agentcli can ask (URL mode, a nested schema)."""
    if request.get("mode", "form") != "form":
        return None
    schema = request.get("requestedSchema")
    if not isinstance(schema, dict) or not isinstance(schema.get("properties", {}), dict):
        return None
    required = schema.get("required") or []
    out: list[Field] = []
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict) or prop.get("type") not in KINDS:
            return None
        choices = tuple(str(c) for c in prop.get("enum") or [])
        default = prop.get("default")
        out.append(Field(str(name), str(prop.get("title") or name), str(prop["type"]), name in required, choices,
                         "" if default is None else str(default).lower() if isinstance(default, bool) else
                         str(default)))
    return out


def parse(field: Field, text: str) -> str | int | float | bool:
    """The typed value of an answer; ValueError saying what is expected."""
    text = text.strip()
    if field.choices and text not in field.choices:
        raise ValueError(f"one of: {', '.join(field.choices)}")
    if field.kind == "boolean":
        if text.lower() in YES or text.lower() in NO:
            return text.lower() in YES
        raise ValueError("yes or no")
    if field.kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError("a whole number") from None
    if field.kind == "number":
        try:
            return float(text)
        except ValueError:
            raise ValueError("a number") from None
    return text
