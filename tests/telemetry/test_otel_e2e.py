"""OpenTelemetry seen from a collector: the real `agentcli -p` exporting to a local OTLP/HTTP receiver that decodes
what it gets with opentelemetry-proto."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, imported_modules, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.telemetry.collector import Receiver, attrs

MARKER = "PLANTED-PROMPT-MARKER-7731"


def run_with_telemetry(tmp_path: Path, fake: FakeLLM, receiver: Receiver, **extra_env: str) -> Any:
    proj = git_repo(tmp_path / "proj", {"a.py": "print('a')\n"})
    fake.push(
        Reply(text="reading", tool_calls=[ToolCall("Read", {"file_path": "a.py"}),
                                          ToolCall("Bash", {"command": f"echo {MARKER}"})]),
        Reply(text="done"),
    )
    # what is exported is checked here, not how long the exit waits for it (test_otlp_exit.py): a loaded machine
    # may need more than the default 1 s to have the SDK ready
    env = {**provider_env(fake, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1", "OTEL_BSP_EXPORT_TIMEOUT": "30000",
           "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "ci-agent", **extra_env}
    run = agentcli(["-p", f"look at a.py {MARKER}", "--model", ANTHROPIC, "--output-format", "json",
                    "--allowedTools", "Bash"], proj, env)
    assert run.status == 0, run.stderr
    return run.json()


def test_run_turn_request_and_tool_spans_with_gen_ai_attributes(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    result = run_with_telemetry(tmp_path, fake_llm, receiver)
    check_export(receiver, result)
    assert all(h["content-type"] == "application/x-protobuf" for _, h, _ in receiver.requests)


@pytest.mark.parametrize("protocol", ["http/json", "grpc"])
def test_the_protocol_variable_picks_otlp_json_and_an_unspoken_one_falls_back_to_protobuf(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver, protocol: str
) -> None:
    result = run_with_telemetry(tmp_path, fake_llm, receiver, OTEL_EXPORTER_OTLP_PROTOCOL=protocol)
    check_export(receiver, result)
    want = "application/json" if protocol == "http/json" else "application/x-protobuf"
    assert {h["content-type"] for _, h, _ in receiver.requests} == {want}
    if protocol == "http/json":  # OTLP/JSON: ids in hex, not the protobuf mapping's base64
        span = json.loads(next(b for p, _, b in receiver.requests if p == "/v1/traces"))
        ids = [s["traceId"] for rs in span["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
        assert ids and all(len(i) == 32 and int(i, 16) for i in ids)


def test_headers_and_gzip_from_the_standard_variables(tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver) -> None:
    result = run_with_telemetry(tmp_path, fake_llm, receiver, OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20t-42",
                                OTEL_EXPORTER_OTLP_TRACES_COMPRESSION="gzip")
    check_export(receiver, result)
    traces = [h for p, h, _ in receiver.requests if p == "/v1/traces"]
    metrics = [h for p, h, _ in receiver.requests if p == "/v1/metrics"]
    assert traces and all(h["authorization"] == "Bearer t-42" and h["content-encoding"] == "gzip" for h in traces)
    assert metrics and all(h["authorization"] == "Bearer t-42" and "content-encoding" not in h for h in metrics)


def check_export(receiver: Receiver, result: Any) -> None:
    """The run's spans (run → turn → request / tool, with their gen_ai attributes) and metrics all arrived."""
    by_name: dict[str, list[Any]] = {}
    for s in receiver.spans:
        by_name.setdefault(s.name, []).append(s)
    (run,) = by_name["invoke_agent agentcli"]
    turns = by_name["turn 1"] + by_name["turn 2"]
    requests = by_name["chat claude-sonnet-4-5"]
    tools = by_name["execute_tool Read"] + by_name["execute_tool Bash"]
    assert run.parent_span_id == b""
    assert all(t.parent_span_id == run.span_id for t in turns)
    turn_ids = {t.span_id for t in turns}
    assert len(requests) == 2 and all(r.parent_span_id in turn_ids for r in requests)
    assert all(t.parent_span_id == turns[0].span_id for t in tools)
    assert len({s.trace_id for s in receiver.spans}) == 1
    r0 = attrs(requests[0])
    assert r0["gen_ai.operation.name"] == "chat" and r0["gen_ai.provider.name"] == "anthropic"
    assert r0["gen_ai.request.model"] == "claude-sonnet-4-5" and "agentcli.time_to_first_token_ms" in r0
    assert sum(attrs(r)["gen_ai.usage.input_tokens"] for r in requests) == result["usage"]["input_tokens"]
    assert sum(attrs(r)["gen_ai.usage.output_tokens"] for r in requests) == result["usage"]["output_tokens"]
    assert abs(sum(attrs(r)["agentcli.cost_usd"] for r in requests) - result["total_cost_usd"]) < 1e-9
    bash = attrs(by_name["execute_tool Bash"][0])
    assert bash["gen_ai.tool.name"] == "Bash" and bash["agentcli.decision"] == "allow"
    assert bash["agentcli.decided_by"] == "rule"
    assert attrs(run)["gen_ai.conversation.id"] == result["session_id"]
    assert attrs(run)["agentcli.cost_usd"] == pytest.approx(result["total_cost_usd"])
    service = {kv.key: kv.value.string_value for kv in receiver.resources[0].attributes}
    assert service["service.name"] == "ci-agent"
    names = {m.name for m in receiver.metrics}
    assert {"agentcli.token.usage", "agentcli.tool.calls", "agentcli.runs",
            "agentcli.permission.decisions"} <= names


def test_prompts_and_tool_io_stay_out_unless_asked_for(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    run_with_telemetry(tmp_path / "off", fake_llm, receiver)
    assert receiver.spans and not any(MARKER.encode() in raw for raw in receiver.raw)
    home = Path(__import__("os").environ["AGENTCLI_HOME"])
    (home / "config.toml").write_text("telemetry_log_prompts = true\n")
    run_with_telemetry(tmp_path / "on", fake_llm, receiver)
    assert any(MARKER.encode() in raw for raw in receiver.raw)


def test_telemetry_off_imports_nothing_of_opentelemetry(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]), Reply(text="ok"))
    imported = imported_modules(["-p", "read", "--model", ANTHROPIC], proj,
                                {**provider_env(fake_llm, ANTHROPIC), "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    assert "agentcli.core.loop" in imported
    assert not any(m.startswith(("opentelemetry", "agentcli.telemetry")) for m in imported)
