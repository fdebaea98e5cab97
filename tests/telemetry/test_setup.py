"""Telemetry's set-up: the resource it reports (ours, under what the standard variables say), the import
`preload` begins as soon as a `-p` run's settings turn telemetry on, and the flush a run's end begins."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from agentcli.core.events import AssistantMessage, RunFinished, RunResult, SessionStarted, TextDelta, TurnStarted
from agentcli.llm.messages import Message, Usage
from agentcli.telemetry.recorder import Instruments, TelemetryRecorder
from agentcli.telemetry.setup import _resource, make_recorder
from agentcli.version import __version__
from tests.telemetry.collector import Receiver


@pytest.mark.parametrize("detectors", ["", "otel"])  # our two detectors run directly / the SDK's Resource.create
def test_the_service_is_agentcli_unless_the_standard_variables_name_it(
    monkeypatch: pytest.MonkeyPatch, detectors: str
) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    monkeypatch.setenv("OTEL_EXPERIMENTAL_RESOURCE_DETECTORS", detectors)
    plain = dict(_resource().attributes)
    assert plain["service.name"] == "agentcli" and plain["service.version"] == __version__
    assert plain["telemetry.sdk.language"] == "python" and plain["service.instance.id"]
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs,service.version=9,"
                       "deployment.environment=ci")
    named = dict(_resource().attributes)
    keys = ("service.name", "service.version", "deployment.environment")
    assert [named[k] for k in keys] == ["from-attrs", "9", "ci"]
    monkeypatch.setenv("OTEL_SERVICE_NAME", "ci-agent")
    assert _resource().attributes["service.name"] == "ci-agent"


def test_preload_imports_what_the_signals_and_protocol_asked_for_and_never_httpx() -> None:
    # httpx/httpcore are the run's own to import (their modules import each other: two threads importing them at
    # once can each get a partly initialised module); telemetry's threads leave them alone
    code = ("import sys\nfrom agentcli.telemetry import setup\nsetup.preload()\n"
            "assert setup._early is not None\nsetup._early.join()\n"
            "recorder, _ = setup.start(log_prompts=False)\nrecorder._thread.join()\nassert recorder._error is None\n"
            "print(' '.join(sys.modules))")
    env = {**os.environ, "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
           "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    loaded = set(run.stdout.split())
    assert {"opentelemetry.sdk.trace", "opentelemetry.sdk.trace.export", "google.protobuf.json_format",
            "opentelemetry.exporter.otlp.proto.common.trace_encoder", "agentcli.telemetry.recorder"} <= loaded
    assert "httpx" not in loaded  # (agentcli.net puts a stand-in httpx._main in place, never httpx itself)
    assert not any(m.startswith(("opentelemetry.sdk.metrics", "opentelemetry.proto.metrics", "opentelemetry.proto.logs",
                                 "requests", "httpcore", "anyio", "importlib.metadata")) for m in loaded)


def run_events(model: str = "m-1") -> list[Any]:
    usage = Usage(10, 3)
    return [SessionStarted("s-1", "/", model, "anthropic", (), "default"), TurnStarted(1), TextDelta("hi"),
            AssistantMessage(Message("assistant", ()), usage, model, "end_turn"),
            RunFinished(RunResult("success", False, "hi", "s-1", 1, 1, 1, 0.5, usage))]


def test_a_run_is_sent_when_it_ends_and_the_exit_sends_nothing_twice(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    for var in ("OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        monkeypatch.delenv(var, raising=False)
    recorder, _ = make_recorder(lambda model, usage: 0.5, log_prompts=False, redact=lambda text: text)
    recorder._thread.join()  # the SDK is loaded: what follows is recorded at once, not replayed at the exit
    for ev in run_events():
        recorder.feed(ev)
    for t in threading.enumerate():  # the flushes the run's end began (no exit yet)
        if t.name == "agentcli-telemetry-flush":
            t.join(10)
    assert sorted(p for p, _, _ in receiver.requests) == ["/v1/metrics", "/v1/traces"]
    assert {s.name for s in receiver.spans} == {"invoke_agent agentcli", "turn 1", "chat m-1"}
    recorder.close()
    assert sorted(p for p, _, _ in receiver.requests) == ["/v1/metrics", "/v1/traces"]


class FakeFlush:
    def __init__(self, can_begin: bool) -> None:
        self.can_begin, self.begun, self.exits = can_begin, 0, list[bool]()

    def begin(self) -> bool:
        self.begun += 1
        return self.can_begin

    def __call__(self, deadline: float, again: bool) -> None:
        self.exits.append(again)


@pytest.mark.parametrize(("can_begin", "again"), [(True, False), (False, True)])
def test_the_exit_flushes_again_only_when_the_run_s_end_could_not(can_begin: bool, again: bool) -> None:
    from opentelemetry.metrics import NoOpMeter
    from opentelemetry.trace import NoOpTracer

    flush = FakeFlush(can_begin)  # False: an earlier flush was still under way (a slow collector)
    recorder = TelemetryRecorder(NoOpTracer(), Instruments(NoOpMeter("test")), flush, cost_fn=lambda m, u: 0.0,
                                 log_prompts=False, redact=lambda text: text)
    for ev in run_events():
        recorder.feed(ev)
    recorder.close(time.monotonic() + 1)
    assert flush.begun == 1 and flush.exits == [again]


def test_events_that_record_nothing_after_the_run_do_not_cost_the_exit_a_second_flush() -> None:
    from opentelemetry.metrics import NoOpMeter
    from opentelemetry.trace import NoOpTracer

    from agentcli.core.events import CompactionStarted, Notice, UsageReport

    flush = FakeFlush(True)
    recorder = TelemetryRecorder(NoOpTracer(), Instruments(NoOpMeter("test")), flush, cost_fn=lambda m, u: 0.0,
                                 log_prompts=False, redact=lambda text: text)
    for ev in run_events():
        recorder.feed(ev)
    for ev in (Notice("info", "session saved"), UsageReport(Usage(1, 1)), CompactionStarted("manual", "", 5),
               TextDelta("late")):
        recorder.feed(ev)
    recorder.close(time.monotonic() + 1)
    assert flush.begun == 1 and flush.exits == [False]
    again = FakeFlush(True)  # a second run after the first one's flush began: sent again at the exit
    recorder = TelemetryRecorder(NoOpTracer(), Instruments(NoOpMeter("test")), again, cost_fn=lambda m, u: 0.0,
                                 log_prompts=False, redact=lambda text: text)
    for ev in run_events():
        recorder.feed(ev)
    recorder.feed(TurnStarted(2))
    recorder.close(time.monotonic() + 1)
    assert again.exits == [True]
