"""The tool registry: short names → "module:Class", imported on first use, so start-up pays only for what runs.

`ToolRegistry.tools()` is called by the loop at the start of every turn, so tools added mid-session (MCP,
`/preset`) appear on the next turn.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from agentcli.tools.base import Tool

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

DEFAULT_TOOLS: tuple[str, ...] = (
    "Read", "Write", "Edit", "Bash", "Glob", "Grep", "BashOutput", "KillShell", "WebFetch", "WebSearch",
    "NotebookEdit", *SUBAGENT_TOOLS,
)


def load_tool(name: str) -> Tool:
    target = BUILTIN_TOOLS[name]
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    tool: Tool = cls()
    return tool


class ToolRegistry:
    """The tools a session may use, in a stable order. `enabled` can change between turns."""

    def __init__(self, enabled: Iterable[str] = DEFAULT_TOOLS, extra: Iterable[Tool] = ()) -> None:
        self.enabled: list[str] = list(enabled)
        self._loaded: dict[str, Tool] = {}
        self._extra: dict[str, Tool] = {t.name: t for t in extra}

    def add(self, tool: Tool) -> None:
        self._extra[tool.name] = tool

    def tools(self) -> list[Tool]:
        out: list[Tool] = []
        for name in self.enabled:
            if name in self._extra:
                continue
            if name not in self._loaded:
                self._loaded[name] = load_tool(name)
            out.append(self._loaded[name])
        out.extend(self._extra.values())
        return out
