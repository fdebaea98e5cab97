"""The values of Claude Code's flags, read and checked once, in the shapes Settings holds.

    --system-prompt-file F    the file's text becomes `system_prompt` (an unreadable file: usage error)
    --append-system-prompt-file F                         … `append_system_prompt`
    --tools "Read,Grep"       `tools`: the exact tool names (also space separated); "" → (); "default" → None
    --setting-sources "a,b"   `setting_sources`: a subset of user, project, local; "" → ()
    --json-schema JSON        `json_schema`: a JSON object that is itself a valid JSON Schema
    --agents JSON             `agents`: subagent definitions (Claude Code's object of name → definition)
    --max-thinking-tokens N   must not be negative
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.errors import UsageError

SETTING_SOURCES = ("user", "project", "local")


def convert(flags: dict[str, Any]) -> dict[str, Any]:
    """Replace the raw strings of these flags in the settings flag layer by checked values (values already in
    their final shape, from the Python API, are kept)."""
    if "system_prompt_file" in flags:
        if "system_prompt" in flags:
            raise UsageError("--system-prompt and --system-prompt-file are exclusive", hint="give one of them")
        flags["system_prompt"] = read_prompt_file("--system-prompt-file", str(flags.pop("system_prompt_file")))
    if "append_system_prompt_file" in flags:
        if "append_system_prompt" in flags:
            raise UsageError("--append-system-prompt and --append-system-prompt-file are exclusive",
                             hint="give one of them")
        path = str(flags.pop("append_system_prompt_file"))
        flags["append_system_prompt"] = read_prompt_file("--append-system-prompt-file", path)
    if isinstance(flags.get("tools"), str):
        flags["tools"] = tool_list(flags["tools"])
    if isinstance(flags.get("setting_sources"), str):
        flags["setting_sources"] = setting_sources(flags["setting_sources"])
    if isinstance(flags.get("json_schema"), str):
        flags["json_schema"] = json_schema(flags["json_schema"])
    elif isinstance(flags.get("json_schema"), dict):  # the Python API's: checked the same way
        from agentcli.structured import check_schema

        check_schema(flags["json_schema"])
    if isinstance(flags.get("agents"), str):
        flags["agents"] = agents(flags["agents"])
    thinking = flags.get("max_thinking_tokens")
    if thinking is not None and thinking < 0:
        raise UsageError(f"--max-thinking-tokens must be 0 or more, got {thinking}")
    return flags


def read_prompt_file(option: str, value: str) -> str:
    path = Path(value).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise UsageError(f"{option} {value}: {why}", hint="pass a readable UTF-8 text file") from err


def _words(value: str) -> list[str]:
    return [w for part in value.replace(",", " ").split() if (w := part.strip())]


def tool_list(value: str) -> tuple[str, ...] | None:
    """`--tools`: None means the usual set (the preset's, or agentcli's default); () means no tools at all."""
    words = _words(value)
    if words == ["default"]:
        return None
    if "default" in words:
        raise UsageError(f"--tools {value!r}: \"default\" stands alone", hint='--tools default, or list the tools')
    return tuple(dict.fromkeys(words))


def setting_sources(value: str) -> tuple[str, ...]:
    words = _words(value)
    bad = [w for w in words if w not in SETTING_SOURCES]
    if bad:
        raise UsageError(f"--setting-sources: unknown source {bad[0]!r}",
                         hint=f"use a comma list of {', '.join(SETTING_SOURCES)}, or \"\" for none")
    return tuple(dict.fromkeys(words))


def agents(value: str) -> tuple[Any, ...]:
    """`--agents JSON`: subagent definitions, beside the files (agentcli.agents.definitions)."""
    import json

    from agentcli.agents.definitions import definitions_from_json

    try:
        return definitions_from_json(json.loads(value))
    except ValueError as err:  # JSONDecodeError is one
        raise UsageError(f"--agents: {err}", hint='e.g. {"reviewer": {"description": "...", "prompt": "..."}}') from err


def json_schema(value: str) -> dict[str, Any]:
    """The schema, parsed and checked against its metaschema (a schema no output could meet is refused now,
    not after five model replies)."""
    import json

    try:
        schema = json.loads(value)
    except ValueError as err:
        raise UsageError(f"--json-schema is not valid JSON: {err}", code="bad_json_schema",
                         hint="pass the schema as one JSON object") from err
    if not isinstance(schema, dict):
        raise UsageError("--json-schema must be a JSON object", code="bad_json_schema",
                         hint='e.g. {"type": "object", "properties": {...}}')
    from agentcli.structured import check_schema

    check_schema(schema)
    return schema
