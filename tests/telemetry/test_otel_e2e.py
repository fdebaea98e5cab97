"""OpenTelemetry seen from a collector: the real `agentcli -p` exporting to a local OTLP/HTTP receiver that decodes
what it gets with opentelemetry-proto."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, imported_modules, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

MARKER = "PLANTED-PROMPT-MARKER-7731"


class Receiver:
    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self.spans: list[Any] = []
        self.metrics: list[Any] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.raw.append(body)
                if self.path == "/v1/traces":
                    req = ExportTraceServiceRequest.FromString(body)
                    receiver.spans += [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
                    receiver.resources = [rs.resource for rs in req.resource_spans]
                elif self.path == "/v1/metrics":
                    req = ExportMetricsServiceRequest.FromString(body)
                    receiver.metrics += [m for rm in req.resource_metrics for sm in rm.scope_metrics
                                         for m in sm.metrics]
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


def attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        v = kv.value
        out[kv.key] = getattr(v, v.WhichOneof("value")) if v.WhichOneof("value") else None
    return out


def run_with_telemetry(tmp_path: Path, fake: FakeLLM, receiver: Receiver, **extra_env: str) -> Any:
    proj = git_repo(tmp_path / "proj", {"a.py": "print('a')\n"})
    fake.push(
        Reply(text="reading", tool_calls=[ToolCall("Read", {"file_path": "a.py"}),
                                          ToolCall("Bash", {"command": f"echo {MARKER}"})]),
        Reply(text="done"),
    )
    env = {**provider_env(fake, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1",
           "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "ci-agent", **extra_env}
    run = agentcli(["-p", f"look at a.py {MARKER}", "--model", ANTHROPIC, "--output-format", "json",
                    "--allowedTools", "Bash"], proj, env)
    assert run.status == 0, run.stderr
    return run.json()


def test_run_turn_request_and_tool_spans_with_gen_ai_attributes(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    result = run_with_telemetry(tmp_path, fake_llm, receiver)
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


def test_a_collector_that_is_down_does_not_hold_the_exit_long(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(text="ok"))
    env = {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1",
           "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "json"], proj, env, timeout=30)
    assert run.status == 0 and json.loads(run.stdout)["result"] == "ok", run.stderr
