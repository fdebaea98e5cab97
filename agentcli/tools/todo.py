"""TodoWrite(todos): the agent's task list for multi-step work (Claude Code's name and argument shape).

The whole list is passed each time. The loop keeps it (`metadata["todos"]`), records it in the session, shows
it to the user and carries it through compaction and resume.
"""

from __future__ import annotations

from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.specs import FromSpec


class TodoWriteTool(FromSpec, spec="TodoWrite"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        todos = [{"content": str(t["content"]), "status": str(t["status"]), "activeForm": str(t["activeForm"])}
                 for t in args.get("todos", [])]
        done = sum(t["status"] == "completed" for t in todos)
        text = (f"Todo list updated ({done}/{len(todos)} completed). Keep working through it; update it as "
                "tasks are finished.")
        return ToolOutput(text, metadata={"todos": todos})
