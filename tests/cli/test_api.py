"""The Python API drives the same loop as the CLI, against the fake server (in-process, real HTTP)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli import query
from agentcli.core.events import AgentEvent, RunFinished, ToolFinished
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def test_query_runs_tools_and_finishes(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]), Reply(text="It says alpha."))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")

    async def go() -> list[AgentEvent]:
        return [ev async for ev in query("read a.txt", cwd=tmp_path, model="anthropic/claude-sonnet-4-5",
                                         no_session_persistence=True)]

    events = asyncio.run(go())
    read = next(e for e in events if isinstance(e, ToolFinished))
    assert "alpha" in read.result.content and not read.result.is_error
    end = events[-1]
    assert isinstance(end, RunFinished) and end.result.result == "It says alpha."
