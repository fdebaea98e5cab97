"""A plugin's hooks and MCP servers, for the session's hook engine and MCP manager: only a trusted plugin's run;
an untrusted one's are one notice each. `${CLAUDE_PLUGIN_ROOT}` is the plugin's pinned folder, as in Claude
Code; its MCP servers are named `plugin_<plugin>_<server>`, so their tools are `mcp__plugin_<plugin>_<server>__…`
as Claude Code names them."""

from __future__ import annotations

import json
import os
import shlex
from typing import Any

from agentcli.agents.definitions import AgentDefinition
from agentcli.plugins.loaded import Loaded
from agentcli.settings.projectfiles import MAX_PLUGIN_FILE, Unreadable, read_text_regular

ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"


def _with_root(value: Any, root: str) -> Any:
    """`value` (a hooks table) with `${CLAUDE_PLUGIN_ROOT}` replaced in every command, shell-quoted."""
    if isinstance(value, dict):
        return {k: (v.replace(ROOT_VAR, shlex.quote(root)) if k == "command" and isinstance(v, str)
                    else _with_root(v, root)) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_root(v, root) for v in value]
    return value


def hook_layers(loaded: Loaded) -> tuple[list[tuple[str, Any]], list[str]]:
    """(source, hooks table) for each trusted plugin with hooks, and a notice for each untrusted one."""
    layers: list[tuple[str, Any]] = []
    notices: list[str] = []
    for p, m in loaded.plugins:
        if m.hooks is None:
            continue
        if not p.trusted:
            notices.append(f"Plugin {p.key}'s hooks do not run until you trust it: agentcli plugin trust {p.key}")
            continue
        try:  # a plugin's file: a link to a device or a FIFO must not hang the start
            data = json.loads(read_text_regular(m.hooks, MAX_PLUGIN_FILE) or "")
        except (Unreadable, ValueError) as exc:
            notices.append(f"Plugin {p.key}'s hooks were not loaded: {m.hooks} is not valid JSON ({exc})")
            continue
        table = data.get("hooks") if isinstance(data, dict) else None
        if isinstance(table, dict):
            layers.append((f"plugin {p.key}", _with_root(table, str(m.root))))
    return layers, notices


def add_servers(config: Any, loaded: Loaded) -> None:
    """Each enabled plugin's MCP servers into `config` (agentcli.mcp.config.McpConfig): a trusted plugin's may
    start, an untrusted one's wait as untrusted servers do (one notice from the MCP manager)."""
    from agentcli.mcp.config import add_source

    for p, m in loaded.plugins:
        if not m.mcp_servers:
            continue
        servers = {f"plugin_{m.name}_{name}": entry for name, entry in m.mcp_servers.items()}
        environ = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(m.root)}
        add_source(config, servers, scope="project", origin=f"plugin {p.key}", trusted=p.trusted, environ=environ)


def agent_definitions(loaded: Loaded) -> tuple[list[AgentDefinition], list[str]]:
    """Each enabled plugin's subagents (`agents/*.md`, Claude Code's format), named `plugin:agent`."""
    from dataclasses import replace

    from agentcli.agents.definitions import MAX_FILE_BYTES, parse_definition
    from agentcli.settings.projectfiles import read_inside

    found: list[AgentDefinition] = []
    warnings: list[str] = []
    for p, m in loaded.plugins:
        for folder in m.agents:
            for f in sorted(folder.glob("*.md")) if folder.is_dir() else [folder]:
                text = read_inside(f, m.root, MAX_FILE_BYTES)
                try:
                    if text is None:
                        raise ValueError("not a regular file inside the plugin")
                    d = parse_definition(text, "plugin", str(f))
                except ValueError as err:
                    warnings.append(f"plugin {p.key}: agent definition {f.name} skipped: {err}")
                    continue
                found.append(replace(d, name=f"{m.name}:{d.name}"))
    return found, warnings
