"""The argv the real Claude Agent SDK builds from `ClaudeAgentOptions` (its own `_build_command`), run by agentcli
against the fake LLM server: every flag parses and keeps its meaning. Only the prompt's way in differs: `-p`
here, where the SDK writes it on stdin with `--input-format stream-json` (tests/sdk drives that)."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


BUILD = """
import json, sys
from claude_agent_sdk import ClaudeAgentOptions
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport
options = ClaudeAgentOptions(**json.loads(sys.argv[1]))
print(json.dumps(SubprocessCLITransport(prompt="unused", options=options)._build_command()))
"""


def sdk_argv(options: dict[str, Any]) -> list[str]:
    """The SDK's command line for `ClaudeAgentOptions(**options)` minus the executable and its
    `--input-format stream-json` (here the prompt comes with -p; tests/sdk drives stdin). Built in a child
    process: importing the SDK here would reorder equal `Literal` types that other tests read (typing caches
    `Optional[Literal[...]]` by equality)."""
    built = subprocess.run([sys.executable, "-c", BUILD, json.dumps(options)], capture_output=True, text=True,
                           check=True)
    argv: list[str] = json.loads(built.stdout)[1:]
    at = argv.index("--input-format")
    del argv[at:at + 2]
    return argv


def test_the_sdks_argv_means_what_it_says(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    extra = tmp_path / "extra"
    extra.mkdir()
    sid = str(uuid.uuid4())
    options = dict(
        cli_path=sys.executable, system_prompt="You are the SDK's agent.", tools=["Read", "Grep"],
        allowed_tools=["Read", "Bash(git diff:*)"], disallowed_tools=["Write"], max_turns=4, max_budget_usd=1.0,
        model=ANTHROPIC, fallback_model="claude-haiku-4-5", permission_mode="acceptEdits", session_id=sid,
        settings=json.dumps({"permissions": {"deny": ["Grep"]}}), add_dirs=[str(extra)],
        include_partial_messages=True, include_hook_events=True, strict_mcp_config=True, setting_sources=[],
        thinking={"type": "enabled", "budget_tokens": 5000}, betas=["context-1m-2025-08-07"],
        output_format={"type": "json_schema", "schema": SCHEMA}, extra_args={"debug-to-stderr": None},
    )
    argv = sdk_argv(options)
    assert argv[:3] == ["--output-format", "stream-json", "--verbose"]
    fake_llm.push(Reply(tool_calls=[ToolCall("Grep", {"pattern": "x"}), ToolCall("Read", {"file_path": "a.py"})]),
                  Reply(tool_calls=[ToolCall("StructuredOutput", {"answer": "x = 1"})]))
    run = agentcli(["-p", "what is in a.py?", *argv], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    lines = run.lines()
    result = lines[-1]
    assert result["subtype"] == "success" and result["structured_output"] == {"answer": "x = 1"}
    assert result["session_id"] == sid and result["num_turns"] == 2
    assert "Unknown tool 'Grep'" in json.dumps(fake_llm.requests[1].body["messages"])
    assert any(line["type"] == "stream_event" for line in lines)  # --include-partial-messages
    first = fake_llm.requests[0].body
    assert first["system"][0]["text"] == "You are the SDK's agent."
    assert [t["name"] for t in first["tools"]] == ["Read", "StructuredOutput"]  # --settings denies Grep: not offered
    assert first["thinking"]["budget_tokens"] == 10000  # 5000 tokens: the medium level
    assert "--betas is ignored" in run.stderr and "--debug-to-stderr is ignored" in run.stderr
