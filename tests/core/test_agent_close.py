"""`Agent.aclose` ends what the session started: its background shells are stopped by the agent itself, so a front
end (the REPL's /clear, /resume and exit; -p; the SDK) never reaches into `agent.ctx` to end them. The real agent,
built as the CLI builds it, against the fake server, running a real background shell."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli.assembly.runtime import build
from agentcli.core.permissions import Approval
from agentcli.tools.background import shells
from tests.cli.helpers import in_process_project
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.permissions.test_loop import Answering


def test_closing_the_agent_stops_its_background_shells(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "sleep 600", "run_in_background": True})]),
                  Reply(text="started"))

    async def scenario() -> list[int | None]:
        built = await build(settings, Answering(Approval("allow")))
        async for _ in built.agent.run("start a long job"):
            pass
        procs = [s.proc for s in shells(built.agent.ctx).values()]
        assert procs and all(p.returncode is None for p in procs)  # running when the run ended
        await built.agent.aclose()
        return [p.returncode for p in procs]  # read before the event loop's own shutdown could stop them

    codes = asyncio.run(scenario())
    assert codes and all(c is not None for c in codes), codes
