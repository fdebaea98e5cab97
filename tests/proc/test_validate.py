from __future__ import annotations

from typing import Any

import pytest

from agentcli.proc.validate import format_errors, validate_args
from agentcli.tools.registry import load_tool

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "minLength": 1},
        "offset": {"type": "integer", "minimum": 0},
        "limit": {"type": "integer", "minimum": 1, "maximum": 10},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "flag": {"type": "boolean"},
        "ratio": {"type": "number", "exclusiveMaximum": 1},
        "maybe": {"type": ["string", "null"]},
        "edits": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {"old": {"type": "string"}},
                "required": ["old"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["file_path"],
    "additionalProperties": False,
}


def test_valid_input_has_no_errors() -> None:
    args = {
        "file_path": "a.py",
        "offset": 3,
        "limit": 10,
        "mode": "a",
        "flag": True,
        "ratio": 0.5,
        "maybe": None,
        "edits": [{"old": "x"}],
    }
    assert validate_args(SCHEMA, args) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"file_path": "a", "offset": "5"}, "offset: expected integer, got string"),
        ({}, "missing required property 'file_path'"),
        ({"file_path": "a", "foo": 1}, "unknown property 'foo'"),
        ({"file_path": 3}, "file_path: expected string, got integer"),
        ({"file_path": ""}, "file_path: must not be empty"),
        ({"file_path": "a", "offset": -1}, "offset: must be >= 0, got -1"),
        ({"file_path": "a", "limit": 11}, "limit: must be <= 10, got 11"),
        ({"file_path": "a", "offset": 1.5}, "offset: expected integer, got number"),
        ({"file_path": "a", "offset": True}, "offset: expected integer, got boolean"),
        ({"file_path": "a", "flag": "true"}, "flag: expected boolean, got string"),
        ({"file_path": "a", "mode": "c"}, "mode: 'c' is not one of 'a', 'b'"),
        ({"file_path": "a", "ratio": 1}, "ratio: must be < 1, got 1"),
        ({"file_path": "a", "maybe": 1}, "maybe: expected string or null, got integer"),
        ({"file_path": "a", "edits": []}, "edits: expected at least 1 items, got 0"),
        ({"file_path": "a", "edits": [{"old": 1}]}, "edits[0].old: expected string, got integer"),
        ({"file_path": "a", "edits": [{}]}, "missing required property 'old' in edits[0]"),
        ({"file_path": "a", "edits": [{"old": "x", "z": 1}]}, "unknown property 'edits[0].z'"),
        ([1, 2], "input: expected object, got array"),
        (None, "input: expected object, got null"),
    ],
)
def test_violations_are_named(args: object, message: str) -> None:
    errors = validate_args(SCHEMA, args)
    assert any(e.startswith(message) for e in errors), errors


def test_integral_float_counts_as_integer() -> None:
    assert validate_args(SCHEMA, {"file_path": "a", "offset": 2.0}) == []


def test_every_problem_is_reported_together() -> None:
    errors = validate_args(SCHEMA, {"offset": "x", "bogus": 1})
    assert len(errors) == 3
    text = format_errors("Read", errors)
    assert text.startswith("Invalid input for tool Read:")
    assert "- missing required property 'file_path'" in text


@pytest.mark.parametrize("name", ["Read", "Write", "Edit", "Bash", "Glob", "Grep"])
def test_builtin_schemas_are_objects_with_known_keywords(name: str) -> None:
    tool = load_tool(name)
    schema = tool.input_schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])
    assert validate_args(schema, {}) == [f"missing required property '{r}'" for r in schema["required"]]
    assert tool.description and len(tool.description) > 80
