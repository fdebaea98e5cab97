"""The status line reads the mode and model from the agent (the one owner, agentcli.core.state), so at each
`SessionChanged` event that comes through the REPL it shows what the event says: after `/mode` typed between
turns, and after an approved plan switched the mode inside a turn."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from rich.console import Console

from agentcli.core.events import AgentEvent, SessionChanged
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.ui.render import Renderer
from agentcli.ui.repl import Repl
from agentcli.ui.status import MODE_LABELS
from tests.ui.scripted import ScriptedProvider, make_repl, text_reply
from tests.ui.test_repl_integration import tool_call


class StatusAtChange(Renderer):
    """A renderer that notes the status line as each SessionChanged event is shown."""

    def __init__(self, repl: Repl) -> None:
        super().__init__(Console(file=io.StringIO(), width=120, color_system=None))
        self.repl = repl
        self.seen: list[tuple[SessionChanged, str]] = []

    def feed(self, event: AgentEvent) -> None:
        super().feed(event)
        if isinstance(event, SessionChanged):
            self.seen.append((event, self.repl.status.plain()))


class ApprovePlan:
    interactive = True

    async def approve(self, request: ApprovalRequest) -> Approval:
        return Approval("allow", mode="acceptEdits" if request.kind == "plan" else None)


def watched(repl: Repl) -> StatusAtChange:
    renderer = StatusAtChange(repl)
    repl.__dict__["renderer"] = renderer
    return renderer


def test_status_after_mode_typed_mid_session(tmp_path: Path) -> None:
    repl, _ = make_repl(tmp_path, ScriptedProvider([text_reply("one"), text_reply("two")]))
    renderer = watched(repl)

    async def go() -> None:
        await repl.submit("first")
        await repl.submit("/mode plan")
        await repl.submit("second")

    asyncio.run(go())
    assert [ev.what for ev, _ in renderer.seen] == ["mode"]
    event, line = renderer.seen[0]
    assert event.mode == "plan" and event.model == "scripted-model"
    assert line.startswith(f" {MODE_LABELS['plan']} · scripted-model")
    assert repl.status.mode == "plan"


def test_status_after_an_approved_plan_shows_the_events_mode(tmp_path: Path) -> None:
    provider = ScriptedProvider([tool_call("ExitPlanMode", '{"plan": "1. do it"}'), text_reply("on it")])
    repl, _ = make_repl(tmp_path, provider)
    assert repl.agent is not None
    repl.agent.approver = ApprovePlan()
    repl.set_mode("plan")
    renderer = watched(repl)
    asyncio.run(repl.submit("plan it"))
    assert [(ev.what, ev.mode) for ev, _ in renderer.seen] == [("mode", "plan"), ("mode", "acceptEdits")]
    for event, line in renderer.seen:  # inside the turn, before it ends: the status line is not a copy
        assert line.startswith(f" {MODE_LABELS[event.mode]} · scripted-model"), line
    assert repl.status.mode == repl.agent.mode == "acceptEdits"


def test_status_before_the_agent_shows_the_persons_choice(tmp_path: Path) -> None:
    repl, _ = make_repl(tmp_path, ScriptedProvider([]))
    repl.agent = None
    repl.set_mode("acceptEdits")
    repl.choose_model("other-model")
    assert repl.status.plain().startswith(f" {MODE_LABELS['acceptEdits']} · other-model")
