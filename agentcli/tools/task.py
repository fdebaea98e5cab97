"""Task, TaskOutput, TaskStop: subagents, with Claude Code's names and arguments.

The work is done by the session's subagent runner (`ctx.subagents`, agentcli.agents.runner), which the assembly
puts there; tools never build agents or providers themselves. Task is marked read-only: it changes nothing by
itself (a child's own calls are checked by the same policy), and several Task calls of one turn run at once.
"""

from __future__ import annotations

from typing import Any

from agentcli.errors import AgentCliError
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.delegation import SubagentFactory
from agentcli.tools.specs import FromSpec


def _runner(ctx: ToolContext) -> SubagentFactory:
    if ctx.subagents is None:
        raise AgentCliError("Subagents are not available in this session.", code="no_subagents")
    return ctx.subagents


class TaskTool(FromSpec, spec="Task"):
    def __init__(self, description: str | None = None) -> None:
        if description:  # listing the session's subagents (agentcli.tools.registry.task_tool_for)
            self.description = description

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


class TaskOutputTool(FromSpec, spec="TaskOutput"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            job = _runner(ctx).background.get(args["task_id"])
        except AgentCliError as err:
            return ToolOutput.error(err.one_line())
        if job is None:
            return ToolOutput.error(f"No background task {args['task_id']!r}.")
        text = job.answer if job.status != "running" else job.text_so_far()
        return ToolOutput(f"Task {job.task_id} ({job.definition.name}) is {job.status}.\n\n{text or '(no output yet)'}")


class TaskStopTool(FromSpec, spec="TaskStop"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            job = await _runner(ctx).stop(args["task_id"])
        except AgentCliError as err:
            return ToolOutput.error(err.one_line())
        if job is None:
            return ToolOutput.error(f"No background task {args['task_id']!r}.")
        return ToolOutput(f"Task {job.task_id} is {job.status}.")
