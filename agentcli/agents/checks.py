"""What `agentcli doctor` says about the tool names the user's agent files and presets use: each name agentcli
has no tool for is one line (the same notice a session shows when it loads that file), and each tool an agent file
names that its subagent cannot have in this setup (the notice its first Task call shows)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from agentcli.agents.definitions import AgentDefinition
from agentcli.errors import ConfigError

NOT_FOR_CHILDREN = ("ExitPlanMode",)


def tools_left_out(d: AgentDefinition, available: Collection[str], nests: bool, max_depth: int) -> list[str]:
    """A notice for each reason tools `d` names are not its subagent's: the parent has them not (`available`: the
    parent's tools), ExitPlanMode, or Task and its kin when the child may not start its own (`nests`)."""
    from agentcli.tools.registry import SUBAGENT_TOOLS

    reasons = {"missing": "not among this session's tools (its tool set, or an MCP server not connected)",
               "plan": "never a subagent's tool",
               "depth": f"subagents may nest only {max_depth} deep (subagent_max_depth)"}
    left: dict[str, list[str]] = {}
    for name in d.tools or ():
        if name in NOT_FOR_CHILDREN:
            left.setdefault("plan", []).append(name)
        elif name not in available:
            left.setdefault("missing", []).append(name)
        elif name in SUBAGENT_TOOLS and not nests:
            left.setdefault("depth", []).append(name)
    whose = f"agent {d.name} ({d.path or d.source})"
    return [f"{whose}: {', '.join(repr(n) for n in names)} left out: {reasons[why]}" for why, names in left.items()]


def child_tool_lines(project_root: Path, available: Collection[str], max_depth: int) -> list[str]:
    """`tools_left_out` for the main agent's children, for every agent file; its MCP tools are not judged (which
    ones a server gives is known only once it runs)."""
    from agentcli.agents.definitions import load_definitions

    found, _ = load_definitions(project_root)
    lines = []
    for d in found.values():
        mcp = {n for n in d.tools or () if n.startswith("mcp__")}
        lines += tools_left_out(d, {*available, *mcp}, max_depth > 1, max_depth)
    return lines


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
