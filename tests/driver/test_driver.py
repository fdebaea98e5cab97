"""agentcli.driver.Driver, as a new front end (an editor's ACP server, an HTTP server) would use it: real
agent, real tools and sandbox, the fake LLM over real HTTP."""

from __future__ import annotations

import asyncio
import signal
import uuid
from contextlib import aclosing
from pathlib import Path

import pytest

from agentcli.core.events import AgentEvent, Notice, RunFinished, SessionStarted, ToolFinished
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.driver import Driver
from agentcli.settings.config import Settings, load_settings
from tests.cli.helpers import ANTHROPIC, git_repo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sandbox.helpers import Ready, gone, marker_process


class Asking:
    """The front end's Approver: here it records each question and allows it (an editor would ask its user)."""

    interactive = True

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval("allow")


class MiniFrontEnd:
    """All a front end needs: start a session, run prompts as events, answer approvals, interrupt, close."""

    def __init__(self, settings: Settings) -> None:
        self.approver = Asking()
        self.driver = Driver(settings, self.approver)
        self.shown: list[AgentEvent] = []

    async def prompt(self, text: str) -> RunFinished:
        async with aclosing(self.driver.run(text)) as events:
            async for event in events:
                self.shown.append(event)
        last = self.shown[-1]
        assert isinstance(last, RunFinished)
        return last

    def interrupt(self) -> bool:
        return self.driver.interrupt()

    async def close(self) -> None:
        await self.driver.aclose()


def settings(root: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, **values: object) -> Settings:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")
    return load_settings(root, {"model": ANTHROPIC, "no_session_persistence": True, **values})


def test_a_front_end_runs_prompts_and_answers_approvals(tmp_path: Path, fake_llm: FakeLLM,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repo(tmp_path / "proj", {".agentcli/settings.toml": '[permissions]\nallow = ["Bash"]\n'})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "echo hello > out.txt"})]), Reply(text="Wrote it."),
                  Reply(text="Still here."))
    front = MiniFrontEnd(settings(root, fake_llm, monkeypatch))

    async def go() -> tuple[RunFinished, RunFinished]:
        try:
            return await front.prompt("write out.txt"), await front.prompt("and now?")
        finally:
            await front.close()

    first, second = asyncio.run(go())
    assert first.result.result == "Wrote it." and second.result.result == "Still here."
    assert (root / "out.txt").read_text() == "hello\n"
    assert [r.tool_name for r in front.approver.asked] == ["Bash"]  # the untrusted allow rule granted nothing
    kinds = [type(e) for e in front.shown]
    assert kinds[0] is SessionStarted and kinds[1] is Notice  # the start-up notice, in the stream, once
    assert kinds.count(Notice) == 1 and kinds.count(SessionStarted) == 2 and kinds.count(RunFinished) == 2
    assert any(isinstance(e, ToolFinished) for e in front.shown)


def test_interrupt_from_another_task_ends_the_turn_with_what_it_did(tmp_path: Path, fake_llm: FakeLLM,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repo(tmp_path / "proj", {"a.txt": "x\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    ready = Ready(root / "ready.fifo")
    fake_llm.push(Reply(text="Starting.", tool_calls=[ToolCall("Bash", {"command": marker_process(marker, 120,
                                                                                                  ready.path)})]),
                  Reply(text="Stopped, as asked."))
    front = MiniFrontEnd(settings(root, fake_llm, monkeypatch, permission_mode="bypassPermissions"))

    async def go() -> tuple[RunFinished, RunFinished, bool]:
        try:
            turn = asyncio.create_task(front.prompt("run the slow thing"))
            assert await asyncio.to_thread(ready.wait, 1), "the command did not start"
            assert front.interrupt()
            stopped = await turn
            idle = front.interrupt()  # nothing runs now
            return stopped, await front.prompt("what happened?"), idle
        finally:
            ready.close()
            await front.close()

    stopped, after, idle = asyncio.run(go())
    result = stopped.result
    assert (result.error_code, result.exit_status, result.num_turns) == ("interrupted", 130, 1)
    assert result.duration_ms > 0 and result.usage.output_tokens > 0
    assert not idle and gone(marker)
    assert after.result.result == "Stopped, as asked." and not after.result.is_error
    assert "[Request interrupted by user]" in str(fake_llm.requests[-1].body["messages"])  # the transcript is valid


def test_a_signal_ends_the_session(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_llm.push(Reply(text="never asked"))
    front = MiniFrontEnd(settings(tmp_path, fake_llm, monkeypatch))

    async def go() -> RunFinished:
        try:
            assert await front.driver.start() is None
            assert not front.driver.interrupt(signal.SIGTERM)  # idle: nothing to stop, but the session is ending
            return await front.prompt("hi")
        finally:
            await front.close()

    finished = asyncio.run(go())
    assert front.driver.signal == signal.SIGTERM and fake_llm.requests == []
    assert (finished.result.error_code, finished.result.exit_status) == ("terminated", 143)


def test_a_second_prompt_while_one_runs_is_refused(tmp_path: Path, fake_llm: FakeLLM,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An HTTP or ACP client may send two prompts at once: the second gets a failed result, the first runs on."""
    root = git_repo(tmp_path / "proj", {"a.txt": "x\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    ready = Ready(root / "ready.fifo")
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": marker_process(marker, 120, ready.path)})]),
                  Reply(text="Stopped."))
    front = MiniFrontEnd(settings(root, fake_llm, monkeypatch, permission_mode="bypassPermissions"))

    async def go() -> tuple[RunFinished, list[AgentEvent]]:
        try:
            turn = asyncio.create_task(front.prompt("run the slow thing"))
            assert await asyncio.to_thread(ready.wait, 1), "the command did not start"
            async with aclosing(front.driver.run("me too")) as events:
                second = [ev async for ev in events]
            front.interrupt()
            return await turn, second
        finally:
            ready.close()
            await front.close()

    first, second = asyncio.run(go())
    assert len(second) == 1 and isinstance(second[0], RunFinished)
    assert second[0].result.error_code == "usage" and "already running" in (second[0].result.error_message or "")
    assert first.result.error_code == "interrupted" and gone(marker)
