"""The built-in tools' names (each to the "module:Class" that implements it), the default tool set, and Claude
Code's names for them. Plain data with no imports, so settings, agent files and the registry can all read it."""

from __future__ import annotations

from collections.abc import Iterable

BUILTIN_TOOLS: dict[str, str] = {
    "Read": "agentcli.tools.read:ReadTool",
    "Write": "agentcli.tools.write:WriteTool",
    "Edit": "agentcli.tools.edit:EditTool",
    "Bash": "agentcli.tools.bash:BashTool",
    "Glob": "agentcli.tools.glob:GlobTool",
    "Grep": "agentcli.tools.grep:GrepTool",
    "BashOutput": "agentcli.tools.background:BashOutputTool",
    "KillShell": "agentcli.tools.background:KillShellTool",
    "ExitPlanMode": "agentcli.tools.exit_plan:ExitPlanModeTool",
    "TodoWrite": "agentcli.tools.todo:TodoWriteTool",
    "WebFetch": "agentcli.tools.webfetch:WebFetchTool",
    "WebSearch": "agentcli.tools.websearch:WebSearchTool",
    "NotebookEdit": "agentcli.tools.notebook:NotebookEditTool",
    "Task": "agentcli.tools.task:TaskTool",
    "TaskOutput": "agentcli.tools.task:TaskOutputTool",
    "TaskStop": "agentcli.tools.task:TaskStopTool",
}
SUBAGENT_TOOLS = ("Task", "TaskOutput", "TaskStop")

# The one default tool set: what a session gets without a preset, and what the `coding` preset names (a test
# holds the two together).
DEFAULT_TOOLS: tuple[str, ...] = (
    "Read", "Write", "Edit", "Bash", "Glob", "Grep", "BashOutput", "KillShell", "WebFetch", "WebSearch",
    "NotebookEdit", "TodoWrite", *SUBAGENT_TOOLS,
)

# Claude Code's names for tools agentcli has under another name, or as a family. Only where the tool named does
# the same thing: MultiEdit's edits are Edit's one at a time, LS's listing is a Glob, NotebookRead is Read (which
# reads notebooks). Anything else is left out with a notice, never guessed.
ALIASES: dict[str, tuple[str, ...]] = {
    "Agent": SUBAGENT_TOOLS,
    "Task": SUBAGENT_TOOLS,
    "KillBash": ("KillShell",),
    "MultiEdit": ("Edit",),
    "LS": ("Glob",),
    "NotebookRead": ("Read",),
}
MCP_PREFIX = "mcp__"  # an MCP server's tool: known only once its server is connected, so never "unknown" here


def resolve_tools(names: Iterable[str], keep_mcp: bool = False) -> tuple[list[str], list[str]]:
    """(agentcli's tool names, the names it has no tool for), in the order given. `keep_mcp`: MCP tool names
    pass through (an agent file may name them)."""
    found: list[str] = []
    unknown: list[str] = []
    for name in names:
        if name in ALIASES:
            found.extend(ALIASES[name])
        elif name in BUILTIN_TOOLS or (keep_mcp and name.startswith(MCP_PREFIX)):
            found.append(name)
        else:
            unknown.append(name)
    return list(dict.fromkeys(found)), list(dict.fromkeys(unknown))


def unknown_tool_notices(where: str, unknown: Iterable[str]) -> list[str]:
    """One notice per tool name agentcli has no tool for (`where`: the file or flag that named it)."""
    return [f"{where}: agentcli has no tool named {name!r}; left out" for name in unknown]


