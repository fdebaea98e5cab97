"""Claude on Amazon Bedrock end to end: AsyncAnthropicBedrock (SigV4-signed with fake credentials) against the
fake server posing as Bedrock, speaking its binary event stream."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import agentcli, git_repo
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.providers.helpers import SDK_RUN_S


def bedrock_env(fake: FakeLLM) -> dict[str, str]:
    return {"BEDROCK_BASE_URL": fake.url, "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE",
            "AWS_SECRET_ACCESS_KEY": "fake-secret-fake-secret-fake-secret-0000"}


def test_text_tools_usage_and_a_retry(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    model = "anthropic.claude-sonnet-4-5-20250929-v1:0"
    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=0)),
                  Reply(text="reading", tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
                  Reply(text="x is 1"))
    run = agentcli(["-p", "what is x?", "--model", f"bedrock/{model}", "--output-format", "stream-json"], proj,
                   bedrock_env(fake_llm), timeout=SDK_RUN_S)
    assert run.status == 0, run.stderr
    assert all(r.path.startswith("/model/anthropic.claude-sonnet-4-5-20250929-v1") for r in fake_llm.requests)
    assert fake_llm.requests[1].headers["authorization"].startswith("AWS4-HMAC-SHA256")
    assert fake_llm.violations == []
    lines = run.lines()
    assert any(x.get("subtype") == "api_retry" for x in lines)
    assert lines[-1]["result"] == "x is 1" and lines[-1]["usage"]["input_tokens"] > 0
    assert "x = 1" in json.dumps(fake_llm.requests[2].body)


def test_no_region_is_one_clear_line(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x\n"})
    run = agentcli(["-p", "hi", "--model", "bedrock/anthropic.claude-sonnet-4-5"], proj, {})
    assert run.status == 2 and "AWS_REGION" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_a_missing_extra_names_the_install(tmp_path: Path, fake_llm: FakeLLM) -> None:
    shadow = tmp_path / "shadow" / "boto3"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named boto3', name='boto3')\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "x\n"})
    import os

    env = {**bedrock_env(fake_llm), "PYTHONPATH": os.pathsep.join([str(tmp_path / "shadow"),
                                                                    os.environ.get("PYTHONPATH", "")])}
    run = agentcli(["-p", "hi", "--model", "bedrock/anthropic.claude-sonnet-4-5"], proj, env)
    assert run.status == 2 and "pip install 'agentcli[bedrock]'" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_direct_api_key_paths_import_no_sdk(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from tests.cli.helpers import ANTHROPIC, imported_modules, provider_env

    proj = git_repo(tmp_path / "proj", {"a.py": "x\n"})
    fake_llm.push(Reply(text="ok"))
    imported = imported_modules(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert not any(m.split(".")[0] in ("anthropic", "openai", "boto3", "botocore") or m.startswith("google.genai")
                   for m in imported)


def test_missing_aws_credentials_is_one_clear_line(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x\n"})
    env = {"BEDROCK_BASE_URL": fake_llm.url, "AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": str(tmp_path / "none"),
           "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"), "AWS_EC2_METADATA_DISABLED": "true"}
    run = agentcli(["-p", "hi", "--model", "bedrock/anthropic.claude-sonnet-4-5"], proj, env)
    assert run.status == 2 and "no AWS credentials" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_a_session_moves_between_anthropic_and_bedrock(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    fake_llm.push(Reply(text="first answer"), Reply(text="second answer"), Reply(text="third answer"))
    direct = {"ANTHROPIC_BASE_URL": fake_llm.url, "ANTHROPIC_API_KEY": "sk-ant-test-0000000000"}
    assert agentcli(["-p", "remember 42", "--model", "anthropic/claude-sonnet-4-5"], proj, direct).status == 0
    two = agentcli(["-c", "-p", "what number?", "--model", "bedrock/anthropic.claude-sonnet-4-5"], proj,
                   bedrock_env(fake_llm), timeout=SDK_RUN_S)
    assert two.status == 0, two.stderr
    assert "remember 42" in json.dumps(fake_llm.requests[1].body["messages"])
    three = agentcli(["-c", "-p", "again?", "--model", "anthropic/claude-sonnet-4-5"], proj, direct)
    assert three.status == 0, three.stderr
    assert "second answer" in json.dumps(fake_llm.requests[2].body["messages"])
