"""TodoWrite(todos): the agent's task list for multi-step work (Claude Code's name and argument shape).

The whole list is passed each time. The loop keeps it (`metadata["todos"]`), records it in the session, shows
it to the user and carries it through compaction and resume.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentcli.tools.base import ToolContext, ToolOutput

STATUSES = ("pending", "in_progress", "completed")


class TodoWriteTool:
    name: ClassVar[str] = "TodoWrite"
    description: ClassVar[str] = (
        "Keep a task list for work of 3 or more steps: send the whole updated list each time. Keep exactly one "
        "task in_progress while you work, mark it completed as soon as it is done, and add tasks you discover."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The updated todo list",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": list(STATUSES)},
                        "activeForm": {"type": "string", "minLength": 1},
                    },
                    "required": ["content", "status", "activeForm"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }
    read_only: ClassVar[bool] = True  # it changes nothing outside the session: never asks
    destructive: ClassVar[bool] = False
    edits_files: ClassVar[bool] = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        todos = [{"content": str(t["content"]), "status": str(t["status"]), "activeForm": str(t["activeForm"])}
                 for t in args.get("todos", [])]
        done = sum(t["status"] == "completed" for t in todos)
        text = (f"Todo list updated ({done}/{len(todos)} completed). Keep working through it; update it as "
                "tasks are finished.")
        return ToolOutput(text, metadata={"todos": todos})
