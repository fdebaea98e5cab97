"""Issue 26: an MCP prompt is a slash command in every mode, as in Claude Code: `-p "/mcp__server__prompt args"`
and a stream-json user message send what the prompt asks, never the command's literal text."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM


def setup(tmp_path: Path, everything: list[str]) -> tuple[Path, str]:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    return proj, json.dumps({"mcpServers": {"every": {"command": everything[0], "args": everything[1:]}}})


def user_text(fake: FakeLLM) -> str:
    return json.dumps(fake.requests[0].body["messages"][0])


def test_prompt_command_in_print_mode(tmp_path: Path, fake_llm: FakeLLM, everything: list[str]) -> None:
    proj, config = setup(tmp_path, everything)
    fake_llm.push(Reply(text="sunny"))
    run = agentcli(["-p", "/mcp__every__args-prompt Paris", "--model", ANTHROPIC, "--mcp-config", config], proj,
                   provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    assert "What's weather in Paris?" in user_text(fake_llm) and "/mcp__every" not in user_text(fake_llm)


def test_prompt_command_in_stream_json(tmp_path: Path, fake_llm: FakeLLM, everything: list[str]) -> None:
    proj, config = setup(tmp_path, everything)
    fake_llm.push(Reply(text="sunny"))
    line = {"type": "user", "message": {"role": "user", "content": "/mcp__every__args-prompt Lyon state=Rhone"}}
    run = agentcli(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                    "--model", ANTHROPIC, "--mcp-config", config], proj, provider_env(fake_llm, ANTHROPIC),
                   stdin=json.dumps(line) + "\n", timeout=120)
    assert run.status == 0, run.stderr
    assert "What's weather in Lyon, Rhone?" in user_text(fake_llm)


def test_prompt_that_cannot_run_says_why(tmp_path: Path, fake_llm: FakeLLM, everything: list[str]) -> None:
    proj, config = setup(tmp_path, everything)
    env = provider_env(fake_llm, ANTHROPIC)
    run = agentcli(["-p", "/mcp__every__args-prompt", "--model", ANTHROPIC, "--mcp-config", config,
                    "--output-format", "json"], proj, env, timeout=120)
    assert run.status == 2, run.stderr
    result = json.loads(run.stdout)
    assert result["is_error"] and "/mcp__every__args-prompt needs: city" in result["result"], result
    run = agentcli(["-p", "/mcp__every__no-such-prompt", "--model", ANTHROPIC, "--mcp-config", config], proj, env,
                   timeout=120)
    assert run.status == 2 and "MCP server 'every' has no such prompt" in run.stderr, run.stderr
    assert run.stderr.rstrip().endswith("[mcp_prompt]")
    assert not fake_llm.requests  # nothing was sent to the model
