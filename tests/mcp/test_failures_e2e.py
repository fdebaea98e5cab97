"""Acceptance 3: a server that dies mid-session, one that never answers `initialize`, one whose command does not
exist. The run completes, the model reads a tool error for each, the user sees one line each, and the first
request waits no longer than the grace."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.test_acceptance_e2e import results, text

SERVERS = Path(__file__).parent / "servers"


def project(tmp_path: Path, grace: float) -> Path:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(f"mcp_grace_s = {grace}\n")
    return proj


def mcp_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "MCP server" in ln]


def test_dead_and_missing_servers(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """A generous grace: the first request waits until both have settled (connected, or failed), no longer."""
    proj = project(tmp_path, 60)
    config = {"mcpServers": {
        "dying": {"command": sys.executable, "args": [str(SERVERS / "dying.py")]},
        "missing": {"command": str(tmp_path / "no-such-server")},
    }}
    fake_llm.push(
        Reply(tool_calls=[ToolCall("mcp__dying__crash", {}, id="c1")]),
        Reply(tool_calls=[ToolCall("mcp__dying__ping", {}, id="c2"), ToolCall("mcp__missing__anything", {}, id="c4")]),
        Reply(text="finished anyway"),
    )
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__dying"], proj, provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "finished anyway"
    first = results(fake_llm.requests[:2])
    assert "'dying'" in text(first["c1"]) and first["c1"]["is_error"]
    got = results(fake_llm.requests)
    assert "'dying' is not connected" in text(got["c2"]) and got["c2"]["is_error"]
    assert "command not found" in text(got["c4"]) and got["c4"]["is_error"]
    lines = mcp_lines(run.stderr)
    assert len(lines) == 2, run.stderr
    assert any("'missing' failed: command not found" in ln for ln in lines)
    assert any("'dying' failed" in ln for ln in lines)
    assert "Traceback" not in run.stderr


def test_silent_server_costs_only_the_grace(tmp_path: Path, fake_llm: FakeLLM) -> None:
    grace = 2.0
    proj = project(tmp_path, grace)
    config = {"mcpServers": {"silent": {"command": sys.executable, "args": [str(SERVERS / "silent.py")]}}}
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__silent__anything", {}, id="c3")]), Reply(text="done"))
    t0 = time.time()
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config)], proj,
                   provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    got = results(fake_llm.requests)
    assert "'silent' is still connecting" in text(got["c3"]) and got["c3"]["is_error"]
    lines = mcp_lines(run.stderr)
    assert len(lines) == 1 and "'silent' is still connecting after 2 s" in lines[0], run.stderr
    # its connect timeout is 30 s: the first request waited for the grace only (plus process start-up)
    waited = fake_llm.requests[0].received_at - t0
    assert grace <= waited < grace + 10, waited
