"""Telemetry through the Python API: the same spans as `-p`, and a host program keeps its process as it was
(no frozen heap, the SDK's threads gone once the query is over)."""

from __future__ import annotations

import asyncio
import gc
import threading
from pathlib import Path

import pytest

from agentcli import query
from agentcli.core.events import AgentEvent, RunFinished
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.telemetry.collector import Receiver, attrs


def test_a_query_exports_its_run_and_leaves_the_host_process_as_it_was(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.push(Reply(text="hello"))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    # the export is checked, not the exit's 1 s budget for it (test_otlp_exit.py): on a loaded machine the SDK
    # was not ready within it, and nothing was exported
    monkeypatch.setenv("OTEL_BSP_EXPORT_TIMEOUT", "30000")
    frozen = gc.get_freeze_count()

    async def go() -> list[AgentEvent]:
        return [ev async for ev in query("hi", cwd=tmp_path, model="anthropic/claude-sonnet-4-5",
                                         no_session_persistence=True, telemetry=True)]

    end = asyncio.run(go())[-1]
    assert isinstance(end, RunFinished)
    (run,) = [s for s in receiver.spans if s.name == "invoke_agent agentcli"]
    assert attrs(run)["gen_ai.conversation.id"] == end.result.session_id
    assert {m.name for m in receiver.metrics} >= {"agentcli.runs", "agentcli.token.usage"}
    assert gc.get_freeze_count() == frozen
    sdk_threads = [t for t in threading.enumerate() if t.name.startswith(("Otel", "agentcli-telemetry"))]
    for t in sdk_threads:
        t.join(10)
    assert not [t.name for t in sdk_threads if t.is_alive()]
