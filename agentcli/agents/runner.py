"""Running subagents for the Task tools: in the foreground (the child's events flow into the parent's stream,
tagged with the Task call's id), in the background (an id at once; the parent hears of the end at its next
turn), and several at once (bounded). Children are built by a factory the assembly supplies, so this module
knows no provider, preset or settings file."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import field

from agentcli.agents.definitions import AgentDefinition
from agentcli.core.calls import current_call
from agentcli.core.events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    RunFinished,
    RunResult,
    SessionStarted,
    SubagentEvent,
)
from agentcli.core.loop import Agent
from agentcli.errors import AgentCliError
from agentcli.ids import new_uuid
from agentcli.record import record

# A child for (its definition, the Task call's id), and its start-up notices to tell after its SessionStarted.
ChildFactory = Callable[[AgentDefinition, str], Awaitable[tuple[Agent, list[str]]]]


@record
class BackgroundNote:
    """What the parent's loop reads from `ToolContext.inbox` at its next turn."""

    text: str
    result: RunResult | None


@record(frozen=False)
class BackgroundTask:
    task_id: str
    definition: AgentDefinition
    description: str
    task: asyncio.Task[RunResult | None] | None = None
    events: list[AgentEvent] = field(default_factory=list)
    status: str = "running"  # running | completed | failed | stopped
    answer: str = ""

    def text_so_far(self) -> str:
        texts = [e.message.text for e in self.events if isinstance(e, AssistantMessage) and e.message.text]
        return "\n\n".join(texts)


class SubagentRunner:
    """One per session (and one per subagent that may itself spawn). `inbox` is the parent's ToolContext.inbox."""

    def __init__(self, definitions: dict[str, AgentDefinition], factory: ChildFactory, inbox: list[object],
                 *, max_parallel: int = 4) -> None:
        self.definitions = definitions
        self.factory = factory
        self.inbox = inbox
        self.background: dict[str, BackgroundTask] = {}
        self._slots = asyncio.Semaphore(max(1, max_parallel))

    def definition(self, name: str) -> AgentDefinition:
        found = self.definitions.get(name)
        if found is None:
            known = ", ".join(sorted(self.definitions))
            raise AgentCliError(f"Unknown subagent_type '{name}'. Available: {known}.", code="unknown_agent")
        return found

    async def run(self, name: str, prompt: str) -> RunResult:
        """Run a child to its end in the foreground; its events go into the parent's stream as they come."""
        definition = self.definition(name)
        scope = current_call.get()
        tool_use_id = scope.tool_use_id if scope is not None else new_uuid()

        def forward(ev: AgentEvent) -> None:
            if scope is not None:
                scope.emit(SubagentEvent(tool_use_id, definition.name, ev))

        return await self._run_child(definition, tool_use_id, prompt, forward)

    def start(self, name: str, description: str, prompt: str) -> BackgroundTask:
        """Start a child in the background; its id is the Task call's id."""
        definition = self.definition(name)
        scope = current_call.get()
        job = BackgroundTask(scope.tool_use_id if scope is not None else f"task_{new_uuid()[:8]}", definition,
                             description)
        job.task = asyncio.ensure_future(self._background(job, prompt))
        self.background[job.task_id] = job
        return job

    async def stop(self, task_id: str) -> BackgroundTask | None:
        job = self.background.get(task_id)
        if job is None or job.task is None:
            return job
        if not job.task.done():
            job.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await job.task
            job.status = "stopped"
        return job

    async def settle(self) -> bool:
        """Wait until a background child's note is in the inbox (True) or no child runs any more (False)."""
        while not any(isinstance(item, BackgroundNote) for item in self.inbox):
            running = [j.task for j in self.background.values() if j.task is not None and not j.task.done()]
            if not running:
                return False
            await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        return True

    async def aclose(self) -> None:
        """The session ends: background children end with it, never beyond."""
        for task_id in list(self.background):
            await self.stop(task_id)

    async def _background(self, job: BackgroundTask, prompt: str) -> RunResult | None:
        def keep(ev: AgentEvent) -> None:
            job.events.append(ev)
            if isinstance(ev.innermost()[2] if isinstance(ev, SubagentEvent) else ev, Notice):
                # never silent, though nobody is reading now: the parent's loop gives it at its next look
                self.inbox.append(SubagentEvent(job.task_id, job.definition.name, ev))

        try:
            result = await self._run_child(job.definition, job.task_id, prompt, keep)
        except asyncio.CancelledError:
            job.status = "stopped"
            raise
        except AgentCliError as err:
            job.status, job.answer = "failed", err.one_line()
            self.inbox.append(BackgroundNote(self._note(job), None))
            return None
        job.status = "failed" if result.is_error else "completed"
        job.answer = result.result
        self.inbox.append(BackgroundNote(self._note(job), result))
        return result

    def _note(self, job: BackgroundTask) -> str:
        """Claude Code's shape for a finished background agent, as the user message that re-enters the loop."""
        return (f"<task-notification>\n<task-id>{job.task_id}</task-id>\n<tool-use-id>{job.task_id}</tool-use-id>\n"
                f"<status>{job.status}</status>\n"
                f"<summary>Agent \"{job.description}\" ({job.definition.name}) {job.status}</summary>\n"
                f"<result>{job.answer}</result>\n</task-notification>")

    async def _run_child(
        self, definition: AgentDefinition, tool_use_id: str, prompt: str, forward: Callable[[AgentEvent], None]
    ) -> RunResult:
        async with self._slots:
            try:
                child, notices = await self.factory(definition, tool_use_id)
            except AgentCliError as err:  # the Task's result tells the model; this, the person (never silent)
                forward(Notice("warning", f"could not start: {err.one_line()}"))
                raise
            result: RunResult | None = None
            try:
                async for ev in child.run(prompt):
                    forward(ev)
                    if isinstance(ev, SessionStarted):  # where the driver gives a session's start-up notices
                        for text in notices:
                            forward(Notice("warning", text))
                        notices = []
                    elif isinstance(ev, RunFinished):
                        result = ev.result
            finally:
                runner = child.subagents
                if isinstance(runner, SubagentRunner):
                    await runner.aclose()
                await child.aclose()
        if result is None:
            raise AgentCliError(f"the {definition.name} subagent ended without a result", code="subagent_failed")
        return result
