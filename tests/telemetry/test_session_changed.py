"""Issue 25: telemetry records a change of the session's mode or model, read from the `SessionChanged` event: a
`session_changed` event on the run's span (agentcli in stream-json mode, changed by the Agent SDK's control
requests between turns, exporting to a local OTLP collector)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import make_sdk, raw, user
from tests.telemetry.collector import Receiver, attrs


def test_mode_and_model_changes_are_span_events_on_the_run(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCLI_ENABLE_TELEMETRY", "1")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    monkeypatch.setenv("OTEL_BSP_EXPORT_TIMEOUT", "30000")  # the export is checked here, not the exit's budget
    fake_llm.push(Reply(text="one"), Reply(text="two"))
    p = raw(make_sdk(tmp_path, fake_llm))
    p.send(user("first"))
    p.read_until(lambda o: o["type"] == "result")
    p.send({"type": "control_request", "request_id": "m", "request": {"subtype": "set_permission_mode",
                                                                       "mode": "plan"}})
    p.send({"type": "control_request", "request_id": "s", "request": {"subtype": "set_model",
                                                                       "model": "claude-haiku-4-5"}})
    p.read_until(lambda o: o["type"] == "control_response" and o["response"]["request_id"] == "s")
    p.send(user("second"))
    p.read_until(lambda o: o["type"] == "result")
    status, _, err = p.finish()
    assert status == 0, err
    runs = [s for s in receiver.spans if s.name == "invoke_agent agentcli"]
    assert len(runs) == 2
    first, second = sorted(runs, key=lambda s: s.start_time_unix_nano)
    assert [e.name for e in first.events] == []
    changes = [attrs(e) for e in second.events if e.name == "session_changed"]
    assert [(c["agentcli.change"], c["agentcli.permission_mode"], c["gen_ai.request.model"]) for c in changes] == [
        ("mode", "plan", "claude-sonnet-4-5"), ("model", "plan", "claude-haiku-4-5")]
    assert attrs(second)["gen_ai.request.model"] == "claude-haiku-4-5"
    assert {s.name for s in receiver.spans} >= {"chat claude-haiku-4-5"}
