"""The exit of a `-p` run with telemetry on: bounded whatever the collector does, what a run imports, and a
misconfigured endpoint refused before the run starts."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, Run, agentcli, git_repo, imported_modules, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.telemetry.collector import Receiver


def one_reply(tmp_path: Path, fake: FakeLLM, endpoint: str, **extra_env: str) -> Run:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake.push(Reply(text="ok"))
    env = {**provider_env(fake, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
           **extra_env}
    return agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "json"], proj, env, timeout=30)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_collector_that_is_down_is_reported_once_without_its_credentials(tmp_path: Path, fake_llm: FakeLLM) -> None:
    run = one_reply(tmp_path, fake_llm, f"http://otel-user:s3cret-pw@127.0.0.1:{closed_port()}")
    assert run.status == 0 and json.loads(run.stdout)["result"] == "ok", run.stderr
    lines = [line for line in run.stderr.splitlines() if "OTLP traces export" in line]
    assert len(lines) == 1 and "failed (ConnectError)" in lines[0], run.stderr
    assert "s3cret-pw" not in run.stderr and "otel-user" not in run.stderr


def test_a_stuck_collector_holds_the_exit_only_until_the_exit_bound(
    tmp_path: Path, fake_llm: FakeLLM, stuck_receiver: Receiver
) -> None:
    # each export may take 60 s (OTEL_EXPORTER_OTLP_TIMEOUT); the exit still waits 500 ms at most, so the run
    # ends well inside the 30 s the helper allows it
    run = one_reply(tmp_path, fake_llm, stuck_receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT="60",
                    OTEL_BSP_EXPORT_TIMEOUT="500")
    assert run.status == 0 and json.loads(run.stdout)["result"] == "ok", run.stderr
    assert "/v1/traces" in [p for p, _, _ in stuck_receiver.requests]  # sent, never answered
    assert run.stderr.count("did not take the last export in time") == 1, run.stderr


def test_telemetry_on_imports_no_requests_and_traces_only_no_metrics_sdk(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    env = {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1",
           "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
    fake_llm.push(Reply(text="ok"))
    both = imported_modules(["-p", "hi", "--model", ANTHROPIC], proj, env)
    assert "opentelemetry.sdk.trace" in both and "opentelemetry.sdk.metrics" in both
    assert not any(m.split(".")[0] in ("requests", "urllib3", "charset_normalizer") for m in both)
    assert {p for p, _, _ in receiver.requests} == {"/v1/traces", "/v1/metrics"}
    receiver.requests.clear()
    fake_llm.push(Reply(text="ok"))
    traces_only = imported_modules(["-p", "hi", "--model", ANTHROPIC], proj, {**env, "OTEL_METRICS_EXPORTER": "none"})
    assert "opentelemetry.sdk.trace" in traces_only
    assert not any(m.startswith("opentelemetry.sdk.metrics") for m in traces_only)
    assert {p for p, _, _ in receiver.requests} == {"/v1/traces"}


def test_an_endpoint_that_is_not_an_http_url_is_refused_before_the_run(tmp_path: Path, fake_llm: FakeLLM) -> None:
    run = one_reply(tmp_path, fake_llm, "localhost:4318")
    assert run.status == 2 and json.loads(run.stdout)["error"]["code"] == "config"
    assert "OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318 is not an http(s) URL" in run.stderr
    assert fake_llm.requests == []


def test_an_export_that_times_out_while_the_exit_waits_is_reported_lost(
    tmp_path: Path, fake_llm: FakeLLM, stuck_receiver: Receiver
) -> None:
    """The exit would wait 20 s, but the export itself gives up after 0.25 s (OTEL_EXPORTER_OTLP_TIMEOUT): the exit
    ends with it, and says the last export is lost rather than nothing (the thread that exported had ended)."""
    run = one_reply(tmp_path, fake_llm, stuck_receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT="0.25",
                    OTEL_BSP_EXPORT_TIMEOUT="20000", OTEL_METRICS_EXPORTER="none")
    assert run.status == 0 and json.loads(run.stdout)["result"] == "ok", run.stderr
    assert [p for p, _, _ in stuck_receiver.requests] == ["/v1/traces"]  # sent, never answered
    # (said by the exit, or, when the export timed out before the exit began, by the exporter)
    said = [line for line in run.stderr.splitlines()
            if "did not take the last export in time" in line or "OTLP traces export" in line]
    assert len(said) == 1 and ("timed out" in said[0] or "in time" in said[0]), run.stderr
