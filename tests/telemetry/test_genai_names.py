"""Issue 26: the names teams' dashboards use. Claude Code's switch (CLAUDE_CODE_ENABLE_TELEMETRY=1) turns
telemetry on; model requests are CLIENT spans; the GenAI conventions' client metrics are exported beside
agentcli's own; a subagent's spans carry its agent name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.telemetry.collector import Receiver, attrs

CHILD = "read-only code explorer"  # in the explore subagent's system prompt only


def run(tmp_path: Path, fake: FakeLLM, receiver: Receiver) -> dict[str, Any]:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "look", "prompt": "find a.py",
                                            "subagent_type": "explore"}, id="toolu_t")]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})], when=CHILD),
        Reply(text="a.py holds one line", when=CHILD),
        Reply(text="done"),
    )
    env = {**provider_env(fake, ANTHROPIC), "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_BSP_EXPORT_TIMEOUT": "30000",
           "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
    done = agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", "json"], proj, env)
    assert done.status == 0, done.stderr
    result: dict[str, Any] = done.json()
    return result


def test_claude_code_switch_client_spans_genai_metrics_and_subagent_names(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    result = run(tmp_path, fake_llm, receiver)
    assert receiver.spans, "CLAUDE_CODE_ENABLE_TELEMETRY=1 did not turn telemetry on"
    chats = [s for s in receiver.spans if s.name.startswith("chat ")]
    assert len(chats) == 4 and all(s.kind == Span.SPAN_KIND_CLIENT for s in chats)
    runs = {s.name: s for s in receiver.spans if s.name.startswith("invoke_agent ")}
    assert set(runs) == {"invoke_agent agentcli", "invoke_agent explore"}
    assert attrs(runs["invoke_agent explore"])["gen_ai.agent.name"] == "explore"
    child_chats = [s for s in chats if attrs(s)["gen_ai.agent.name"] == "explore"]
    assert len(child_chats) == 2
    read = next(s for s in receiver.spans if s.name == "execute_tool Read")
    assert attrs(read)["gen_ai.agent.name"] == "explore"

    metrics = {m.name: m for m in receiver.metrics}
    assert {"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "agentcli.token.usage"} <= set(metrics)
    tokens = metrics["gen_ai.client.token.usage"]
    assert tokens.unit == "{token}" and tokens.HasField("histogram")
    by_type: dict[str, float] = {}
    for point in tokens.histogram.data_points:
        labels = {kv.key: kv.value.string_value for kv in point.attributes}
        assert labels["gen_ai.operation.name"] == "chat" and labels["gen_ai.provider.name"] == "anthropic"
        by_type[labels["gen_ai.token.type"]] = by_type.get(labels["gen_ai.token.type"], 0) + point.sum
    assert by_type["input"] == result["usage"]["input_tokens"]
    duration = metrics["gen_ai.client.operation.duration"]
    assert duration.unit == "s" and sum(p.count for p in duration.histogram.data_points) == 4
