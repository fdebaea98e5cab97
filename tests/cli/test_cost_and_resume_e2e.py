"""Cost reporting to the cent, session persistence and cross-provider resume, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, OPENAI, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall, Usage
from tests.fakes.server import FakeLLM


def test_cost_matches_catalog_to_the_cent(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(
        Reply(text="a", tool_calls=[ToolCall("Glob", {"pattern": "*"})],
              usage=Usage(input_tokens=100_000, output_tokens=20_000, cache_read_tokens=100_000)),
        Reply(text="b", usage=Usage(input_tokens=200_000, output_tokens=10_000)),
    )
    run = agentcli(["-p", "x", "--model", ANTHROPIC, "--output-format", "json"], tmp_path,
                   provider_env(fake_llm, ANTHROPIC))
    result = run.json()
    # claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read per MTok
    expected = (300_000 * 3.0 + 30_000 * 15.0 + 100_000 * 0.30) / 1_000_000
    assert abs(result["total_cost_usd"] - expected) < 0.005 and round(expected, 2) == 1.38
    mu = result["modelUsage"]["claude-sonnet-4-5"]
    assert mu["inputTokens"] == 300_000 and mu["outputTokens"] == 30_000 and mu["cacheReadInputTokens"] == 100_000
    assert mu["contextWindow"] == 200_000


def test_session_file_is_written_and_named_by_session_id(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="stored"))
    home = tmp_path / "home"
    env = {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_HOME": str(home)}
    run = agentcli(["-p", "remember me", "--model", ANTHROPIC, "--output-format", "json"], tmp_path, env)
    sid = run.json()["session_id"]
    files = list(home.rglob(f"{sid}.jsonl"))
    assert len(files) == 1
    lines = [json.loads(x) for x in files[0].read_text().splitlines()]
    assert lines[0]["schema_version"] >= 1 and "remember me" in files[0].read_text()


def test_resume_on_another_provider_sends_a_valid_request(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "p", {"a.py": "x = 1\n"})
    home = tmp_path / "home"
    with FakeLLM([
        Reply(thinking="I should read a.py", tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
        Reply(text="a.py sets x to 1."),
    ]) as fake:
        first = agentcli(["-p", "what is in a.py?", "--model", ANTHROPIC, "--output-format", "json"], proj,
                         {**provider_env(fake, ANTHROPIC), "AGENTCLI_HOME": str(home)})
    sid = first.json()["session_id"]
    assert first.status == 0, first.stderr
    with FakeLLM([Reply(text="Still x = 1.")]) as fake:
        second = agentcli(["-p", "and now?", "--resume", sid, "--model", OPENAI, "--output-format", "json"], proj,
                          {**provider_env(fake, OPENAI), "AGENTCLI_HOME": str(home)})
        assert second.status == 0, second.stderr
        assert fake.violations == []
        msgs = fake.requests[0].body["messages"]
    roles = [m["role"] for m in msgs]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert msgs[2]["tool_calls"][0]["function"]["name"] == "Read"
    assert msgs[3]["tool_call_id"] == msgs[2]["tool_calls"][0]["id"]
    assert "x = 1" in msgs[3]["content"]
    assert second.json()["session_id"] == sid


def test_no_session_persistence_writes_nothing(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="gone"))
    home = tmp_path / "home"
    run = agentcli(["-p", "x", "--model", ANTHROPIC, "--no-session-persistence"], tmp_path,
                   {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_HOME": str(home)})
    assert run.status == 0
    assert not list(home.rglob("*.jsonl"))


def test_responses_reasoning_is_carried_to_the_next_turn_encrypted(tmp_path: Path, fake_llm: FakeLLM) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_llm.push(
        Reply(thinking="I need to read a.py first", tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
        Reply(text="x is 1."),
    )
    env = {"OPENAI_BASE_URL": fake_llm.openai_url, "OPENAI_API_KEY": "sk-test-0000000000"}
    run = agentcli(["-p", "what is x?", "--model", "openai-responses/o3", "--output-format", "json"], tmp_path, env)
    assert run.status == 0, run.stderr
    assert fake_llm.violations == []
    first, second = (r.body for r in fake_llm.requests)
    assert first["include"] == ["reasoning.encrypted_content"] and first["store"] is False
    kinds = [item.get("type", "message") for item in second["input"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    reasoning = second["input"][1]
    assert reasoning["encrypted_content"].startswith("gAAAA-fake-")
    assert reasoning["summary"] == [{"type": "summary_text", "text": "I need to read a.py first"}]
