"""Agent definitions: Markdown files with YAML front matter (`name`, `description`, `tools`, `model`), the body
being the agent's system prompt — Claude Code's format, so `.claude/agents/*.md` files work as they are.

Where they come from, later ones overriding earlier ones of the same name: the built-ins (`general-purpose`,
`explore`), Claude Code's `~/.claude/agents/` (`$CLAUDE_CONFIG_DIR/agents/`), `~/.agentcli/agents/`, the
project's `.claude/agents/`, then its `.agentcli/agents/`. A file that does not parse is skipped with a warning
naming it; it never stops a session.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcli.agents import builtin
from agentcli.record import record
from agentcli.settings.extensions import definition_dirs

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
READ_ONLY_TOOLS = builtin.READ_ONLY_TOOLS
MAX_FILE_BYTES = 256 * 1024


@record
class AgentDefinition:
    """`tools` None means the parent's tools; `model` None or "inherit" the parent's model."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    max_turns: int | None = None
    source: str = "builtin"
    path: str | None = None


GENERAL = AgentDefinition(*builtin.GENERAL)
EXPLORE = AgentDefinition(*builtin.EXPLORE)
BUILTIN = (GENERAL, EXPLORE)


def load_definitions(project_root: Path) -> tuple[dict[str, AgentDefinition], list[str]]:
    """Every definition by name, and warnings about files that were skipped."""
    from agentcli.settings.projectfiles import read_inside

    found = {d.name: d for d in BUILTIN}
    warnings: list[str] = []
    for source, directory in definition_dirs(project_root):
        try:
            files = sorted(p for p in directory.iterdir() if p.suffix == ".md" and p.is_file())
        except OSError:
            continue
        for f in files:
            text = read_inside(f, project_root if source == "project" else None, MAX_FILE_BYTES)
            try:
                if text is None:
                    raise ValueError("not a regular file inside the project")
                d = parse_definition(text, source, str(f))
            except ValueError as err:
                warnings.append(f"agent definition {f} skipped: {err}")
                continue
            found[d.name], unknown = with_known_tools(d)
            warnings += unknown
    return found, warnings


def with_known_tools(d: AgentDefinition) -> tuple[AgentDefinition, list[str]]:
    """`d` with its tool list in agentcli's names (Claude Code's aliases mapped, MCP tools kept), and one notice
    per name agentcli has no tool for. A list left empty stays empty: the agent was meant to have only those."""
    if d.tools is None:
        return d, []
    from agentcli.tools.names import resolve_tools, unknown_tool_notices

    found, unknown = resolve_tools(d.tools, keep_mcp=True)
    return replace(d, tools=tuple(found)), unknown_tool_notices(f"agent {d.name} ({d.path or d.source})", unknown)


AGENT_JSON_KEYS = {"description", "prompt", "tools", "model", "maxTurns"}


def definitions_from_json(data: Any, source: str = "flag") -> tuple[AgentDefinition, ...]:
    """Claude Code's `--agents` object: `{"reviewer": {"description": …, "prompt": …, "tools": [...], "model": …}}`.
    Raises ValueError naming the agent and what is wrong (a key agentcli cannot honour included)."""
    if not isinstance(data, dict):
        raise ValueError('must be a JSON object of agents: {"name": {"description": ..., "prompt": ...}}')
    out: list[AgentDefinition] = []
    for name, spec in data.items():
        if not isinstance(name, str) or not NAME.match(name):
            raise ValueError(f"agent name {name!r} must be lowercase letters, digits, '-' or '_'")
        if not isinstance(spec, dict):
            raise ValueError(f"agent {name}: must be an object with description and prompt")
        unknown = sorted(k for k, v in spec.items() if k not in AGENT_JSON_KEYS and v is not None)
        if unknown:
            known = ", ".join(sorted(AGENT_JSON_KEYS))
            raise ValueError(f"agent {name}: {', '.join(unknown)} not supported (known: {known})")
        description, prompt, model = spec.get("description"), spec.get("prompt"), spec.get("model")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(f"agent {name}: 'description' is required")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"agent {name}: 'prompt' is required")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ValueError(f"agent {name}: 'model' must be a model name, an alias or 'inherit'")
        out.append(AgentDefinition(name, description.strip(), prompt.strip(), _tools(spec.get("tools")),
                                   None if model in (None, "inherit") else str(model).strip(),
                                   _turns(spec.get("maxTurns")), source))
    return tuple(out)


def parse_definition(text: str, source: str, path: str | None = None) -> AgentDefinition:
    meta, body = _front_matter(text)
    name = meta.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError("'name' must be lowercase letters, digits, '-' or '_'")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("'description' is required")
    if not body.strip():
        raise ValueError("the body (the agent's system prompt) is empty")
    model = meta.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ValueError("'model' must be a model name, an alias or 'inherit'")
    return AgentDefinition(name, description.strip(), body.strip(), _tools(meta.get("tools")),
                           None if model in (None, "inherit") else str(model).strip(), _turns(meta.get("max_turns")),
                           source, path)


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        raise ValueError("no front matter (a '---' block with name and description)")
    parts = re.split(r"^---[ \t]*$", text, maxsplit=2, flags=re.M)
    if len(parts) < 3:
        raise ValueError("the front matter is not closed by '---'")
    import yaml

    try:
        meta = yaml.safe_load(parts[1]) or {}
    except yaml.YAMLError as err:
        raise ValueError(f"the front matter is not valid YAML: {err}") from err
    if not isinstance(meta, dict):
        raise ValueError("the front matter must be a mapping")
    return meta, parts[2]


def _tools(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(t, str) for t in items):
        raise ValueError("'tools' must be a comma-separated string or a list of tool names")
    return tuple(t.strip() for t in items if t.strip())


def _turns(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("'max_turns' must be a positive whole number")
    return value
