"""A subagent's approval question comes after its progress: by the time the question reaches the approver, the
consumer of the parent's stream (the REPL's renderer) has taken every event the child produced before it — its
Read line is on the screen. The real agent, built as the CLI builds it, against the fake server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agentcli.assembly.runtime import build
from agentcli.core.events import AgentEvent, SubagentEvent, ToolStarted
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.settings.config import Settings
from tests.cli.helpers import in_process_project
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

# How long a stalled consumer gives a child to ask before its progress is taken. Without the ordering the child
# asks within milliseconds of its model's answer; with it the child cannot ask at all while the consumer stalls,
# so this bounds only the time the passing case spends (the question never depends on it arriving).
STALL_S = 1.5


@dataclass
class Watching:
    """An interactive approver that notes which child tool calls the consumer had taken when it was asked."""

    taken: list[AgentEvent]
    asked: asyncio.Event = field(default_factory=asyncio.Event)
    shown_when_asked: list[list[str]] = field(default_factory=list)
    name: str = "user"
    interactive: bool = True

    async def approve(self, request: ApprovalRequest) -> Approval:
        self.shown_when_asked.append([e.event.name for e in self.taken
                                      if isinstance(e, SubagentEvent) and isinstance(e.event, ToolStarted)])
        self.asked.set()
        return Approval("deny", reason="not now")


def drive(settings: Settings, approver: Watching, taken: list[AgentEvent],
          stall_on: Callable[[AgentEvent], bool]) -> None:
    """Run the agent as a front end would, stalling (a slow terminal) on the first event `stall_on` picks."""

    async def scenario() -> None:
        built = await build(settings, approver)
        stalled = False
        try:
            async for ev in built.agent.run("how long is a.txt?"):
                taken.append(ev)
                if stall_on(ev) and not stalled:
                    stalled = True  # that event is still being drawn
                    asked = asyncio.ensure_future(approver.asked.wait())
                    await asyncio.wait({asked}, timeout=STALL_S)
                    asked.cancel()
        finally:
            await built.agent.aclose()

    asyncio.run(scenario())


def test_a_child_question_waits_for_its_progress_to_be_taken(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"})
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "count lines", "prompt": "count the lines of a.txt",
                                            "subagent_type": "general-purpose"})]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})], when="count the lines of a.txt"),
        Reply(tool_calls=[ToolCall("Bash", {"command": "touch counted.txt"})], when="alpha", burst=True),
        Reply(text="one line", when="not now"),
        Reply(text="The file has one line."),
    )
    taken: list[AgentEvent] = []
    approver = Watching(taken)

    drive(settings, approver, taken, lambda ev: isinstance(ev, SubagentEvent))
    assert approver.shown_when_asked == [["Read"]]
    assert (proj / "counted.txt").exists() is False


def test_a_grandchild_question_waits_for_both_streams(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two levels down, the question waits for the child's stream and then the parent's: the grandchild's Read
    (relayed through its parent's stream into the main one) is taken before it asks."""
    _, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"},
                                     subagent_max_depth=2)
    task = {"description": "delegate", "subagent_type": "general-purpose"}
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {**task, "prompt": "ask a helper to count"})]),
        Reply(tool_calls=[ToolCall("Task", {**task, "prompt": "count the lines of a.txt"})],
              when="ask a helper to count"),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})], when="count the lines of a.txt"),
        Reply(tool_calls=[ToolCall("Bash", {"command": "touch counted.txt"})], when="alpha", burst=True),
        Reply(text="one line", when="not now"),
        Reply(text="my helper says one line", when="one line"),
        Reply(text="The file has one line."),
    )
    taken: list[AgentEvent] = []
    labels: list[str | None] = []

    class Nested(Watching):
        async def approve(self, request: ApprovalRequest) -> Approval:
            labels.append(request.agent)
            self.shown_when_asked.append([e.event.event.name for e in self.taken
                                          if isinstance(e, SubagentEvent) and isinstance(e.event, SubagentEvent)
                                          and isinstance(e.event.event, ToolStarted)])
            self.asked.set()
            return Approval("deny", reason="not now")

    approver = Nested(taken)

    drive(settings, approver, taken,
          lambda ev: isinstance(ev, SubagentEvent) and isinstance(ev.event, SubagentEvent))
    assert labels == ["general-purpose"]  # the grandchild's own name (every level shares the session's approver)
    assert approver.shown_when_asked == [["Read"]]
