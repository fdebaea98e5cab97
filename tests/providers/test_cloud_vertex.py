"""Vertex AI end to end: Claude through AsyncAnthropicVertex and Gemini through google-genai's Vertex client,
against the fake server posing as Vertex AI (its real request paths), with a fake access token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import agentcli, git_repo
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.providers.helpers import SDK_RUN_S


def vertex_env(fake: FakeLLM) -> dict[str, str]:
    return {"VERTEX_BASE_URL": fake.url, "ANTHROPIC_VERTEX_PROJECT_ID": "proj-1", "CLOUD_ML_REGION": "us-east5",
            "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.fake-token"}


@pytest.mark.parametrize(("model", "path_part"), [
    ("vertex/claude-sonnet-4-5", "/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5"
                                 ":streamRawPredict"),
    ("vertex/gemini-2.5-pro", "/projects/proj-1/locations/us-east5/publishers/google/models/gemini-2.5-pro"
                              ":streamGenerateContent"),
])
def test_text_tools_usage_and_a_retry(tmp_path: Path, fake_llm: FakeLLM, model: str, path_part: str) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    fake_llm.push(Reply(fault=Fault.overloaded()),
                  Reply(text="reading", tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
                  Reply(text="x is 1"))
    run = agentcli(["-p", "what is x?", "--model", model, "--output-format", "stream-json"], proj,
                   vertex_env(fake_llm), timeout=SDK_RUN_S)
    assert run.status == 0, run.stderr
    assert all(path_part in r.path for r in fake_llm.requests), [r.path for r in fake_llm.requests]
    assert fake_llm.requests[1].headers["authorization"] == "Bearer ya29.fake-token"
    assert fake_llm.violations == []
    lines = run.lines()
    assert any(x.get("subtype") == "api_retry" for x in lines)
    assert lines[-1]["result"] == "x is 1" and lines[-1]["usage"]["input_tokens"] > 0
    assert "x = 1" in json.dumps(fake_llm.requests[2].body)


def test_no_project_is_one_clear_line(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x\n"})
    run = agentcli(["-p", "hi", "--model", "vertex/claude-sonnet-4-5"], proj, {})
    assert run.status == 2 and "ANTHROPIC_VERTEX_PROJECT_ID" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_a_session_moves_between_anthropic_and_vertex(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    fake_llm.push(Reply(text="first answer"), Reply(text="second answer"), Reply(text="third answer"))
    direct = {"ANTHROPIC_BASE_URL": fake_llm.url, "ANTHROPIC_API_KEY": "sk-ant-test-0000000000"}
    one = agentcli(["-p", "remember 42", "--model", "anthropic/claude-sonnet-4-5"], proj, direct)
    assert one.status == 0, one.stderr
    two = agentcli(["-c", "-p", "what number?", "--model", "vertex/claude-sonnet-4-5"], proj, vertex_env(fake_llm),
                   timeout=SDK_RUN_S)
    assert two.status == 0, two.stderr
    assert "remember 42" in json.dumps(fake_llm.requests[1].body["messages"])
    three = agentcli(["-c", "-p", "again?", "--model", "anthropic/claude-sonnet-4-5"], proj, direct)
    assert three.status == 0, three.stderr
    assert "second answer" in json.dumps(fake_llm.requests[2].body["messages"])
