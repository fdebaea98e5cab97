"""Task, TaskOutput, TaskStop: subagents, with Claude Code's names and arguments.

The work is done by the session's subagent runner (`ctx.subagents`, agentcli.agents.runner), which the assembly
puts there; tools never build agents or providers themselves. Task is marked read-only: it changes nothing by
itself (a child's own calls are checked by the same policy), and several Task calls of one turn run at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentcli.errors import AgentCliError
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.delegation import SubagentFactory

BASE_DESCRIPTION = (
    "Launch a subagent to handle a task on its own, with a fresh context: it gets only your `prompt`, works "
    "with its own tools, and returns one final report as this tool's result (the user does not see it: relay "
    "what matters). Use it for broad searches and self-contained work that would otherwise fill your context. "
    "Several Task calls in one reply run in parallel. With run_in_background the call returns an id at once; "
    "you are told when it finishes (TaskOutput shows progress, TaskStop stops it). Write a complete, specific "
    "prompt: the subagent knows nothing of this conversation."
)


TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "a short (3-5 word) description of the task"},
        "prompt": {"type": "string", "description": "the task for the subagent, complete and specific"},
        "subagent_type": {"type": "string", "description": "which kind of subagent to use"},
        "run_in_background": {"type": "boolean", "description": "return at once and run in the background"},
    },
    "required": ["description", "prompt", "subagent_type"],
    "additionalProperties": False,
}
TASK_ID_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task_id": {"type": "string"}},
    "required": ["task_id"],
    "additionalProperties": False,
}


def describe(agents: Iterable[tuple[str, str]]) -> str:
    listing = "\n".join(f"- {name}: {text}" for name, text in agents)
    return f"{BASE_DESCRIPTION}\n\nAvailable subagent_type values:\n{listing}"


def _runner(ctx: ToolContext) -> SubagentFactory:
    if ctx.subagents is None:
        raise AgentCliError("Subagents are not available in this session.", code="no_subagents")
    return ctx.subagents


class TaskTool:
    name = "Task"
    read_only = True
    destructive = False
    edits_files = False
    input_schema: dict[str, Any] = TASK_SCHEMA

    def __init__(self, description: str | None = None) -> None:
        self.description = description or describe([("general-purpose", "general research and multi-step work")])

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            runner = _runner(ctx)
            if args.get("run_in_background"):
                job = runner.start(args["subagent_type"], args["description"], args["prompt"])
                return ToolOutput(f"Started background task {job.task_id} ({job.definition.name}). You will be "
                                  f"told when it finishes; TaskOutput shows its progress.",
                                  metadata={"task_id": job.task_id})
            result = await runner.run(args["subagent_type"], args["prompt"])
        except AgentCliError as err:
            return ToolOutput.error(err.one_line())
        if result.is_error:
            return ToolOutput.error(f"The subagent failed: {result.error_message or result.result}")
        return ToolOutput(result.result or "(the subagent gave no answer)")


class TaskOutputTool:
    name = "TaskOutput"
    description = "Show the status and the output so far of a background task (its id from Task)."
    read_only = True
    destructive = False
    edits_files = False
    input_schema: dict[str, Any] = TASK_ID_SCHEMA

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            job = _runner(ctx).background.get(args["task_id"])
        except AgentCliError as err:
            return ToolOutput.error(err.one_line())
        if job is None:
            return ToolOutput.error(f"No background task {args['task_id']!r}.")
        text = job.answer if job.status != "running" else job.text_so_far()
        return ToolOutput(f"Task {job.task_id} ({job.definition.name}) is {job.status}.\n\n{text or '(no output yet)'}")


class TaskStopTool:
    name = "TaskStop"
    description = "Stop a running background task (its id from Task)."
    read_only = True  # it ends a subagent this session started; nothing outside the session changes
    destructive = False
    edits_files = False
    input_schema: dict[str, Any] = TASK_ID_SCHEMA

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            job = await _runner(ctx).stop(args["task_id"])
        except AgentCliError as err:
            return ToolOutput.error(err.one_line())
        if job is None:
            return ToolOutput.error(f"No background task {args['task_id']!r}.")
        return ToolOutput(f"Task {job.task_id} is {job.status}.")
