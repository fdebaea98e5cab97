"""What `agentcli doctor` says about the tool names the user's agent files and presets use: each name agentcli
has no tool for is one line (the same notice a session shows when it loads that file)."""

from __future__ import annotations

from pathlib import Path

from agentcli.errors import ConfigError


def unknown_tool_lines(project_root: Path) -> list[str]:
    from agentcli.agents.definitions import load_definitions
    from agentcli.settings.presets import list_presets
    from agentcli.tools.names import resolve_tools, unknown_tool_notices

    _, lines = load_definitions(project_root)
    try:
        presets = list_presets(project_root)
    except ConfigError as err:
        return [*lines, f"presets: {err.one_line()}"]
    for p in presets:
        lines += unknown_tool_notices(f"preset {p.name} ({p.path or p.source})", resolve_tools(p.tools)[1])
    return lines
