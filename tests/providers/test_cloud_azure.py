"""Azure OpenAI end to end: the real `agentcli -p` through the OpenAI SDK's AsyncAzureOpenAI client against the
fake server posing as an Azure endpoint (its real request path and api-version query)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import agentcli, git_repo
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.providers.helpers import SDK_RUN_S


def azure_env(fake: FakeLLM, **more: str) -> dict[str, str]:
    return {"AZURE_OPENAI_ENDPOINT": fake.url, "AZURE_OPENAI_API_KEY": "azure-test-key-000000",
            "OPENAI_API_VERSION": "2024-10-21", **more}


def test_text_tools_usage_and_a_retry_through_the_azure_client(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=0)),
                  Reply(text="reading", tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
                  Reply(text="x is 1"))
    run = agentcli(["-p", "what is x?", "--model", "azure/my-gpt41", "--output-format", "stream-json"], proj,
                   azure_env(fake_llm), timeout=SDK_RUN_S)
    assert run.status == 0, run.stderr
    first = fake_llm.requests[1]
    assert first.path.startswith("/openai/deployments/my-gpt41/chat/completions")
    assert first.headers["api-key"] == "azure-test-key-000000"
    assert first.path.endswith("?api-version=2024-10-21")
    assert first.body["model"] == "my-gpt41" and fake_llm.violations == []
    lines = run.lines()
    assert any(x.get("subtype") == "api_retry" for x in lines)
    result = lines[-1]
    assert result["result"] == "x is 1" and result["usage"]["input_tokens"] > 0
    assert "x = 1" in json.dumps(fake_llm.requests[2].body["messages"])


def test_missing_credentials_is_one_clear_line(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x\n"})
    run = agentcli(["-p", "hi", "--model", "azure/dep"], proj, {"AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"})
    assert run.status == 2 and "AZURE_OPENAI_API_KEY" in run.stderr and len(run.stderr.strip().splitlines()) == 1
