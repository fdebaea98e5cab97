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
GRACE = 5.0  # long enough for the dying server (Python, SDK import) to be up on a loaded 2-core machine


def test_broken_servers_never_block_or_crash(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {
        "dying": {"command": sys.executable, "args": [str(SERVERS / "dying.py")]},
        "silent": {"command": sys.executable, "args": [str(SERVERS / "silent.py")]},
        "missing": {"command": str(tmp_path / "no-such-server")},
    }}
    fake_llm.push(
        Reply(tool_calls=[ToolCall("mcp__dying__crash", {}, id="c1")]),
        Reply(tool_calls=[ToolCall("mcp__dying__ping", {}, id="c2"), ToolCall("mcp__silent__anything", {}, id="c3"),
                          ToolCall("mcp__missing__anything", {}, id="c4")]),
        Reply(text="finished anyway"),
    )
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(f"mcp_grace_s = {GRACE}\n")
    t0 = time.time()
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__dying"], proj, {**provider_env(fake_llm, ANTHROPIC)})
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "finished anyway"
    got = results(fake_llm.requests)
    assert "'dying' is not connected" in text(got["c2"]) and got["c2"]["is_error"]
    assert "'silent' is still connecting" in text(got["c3"]) and got["c3"]["is_error"]
    assert "command not found" in text(got["c4"]) and got["c4"]["is_error"]
    first = results(fake_llm.requests[:2])
    assert "'dying'" in text(first["c1"]) and first["c1"]["is_error"]
    lines = [ln for ln in run.stderr.splitlines() if "MCP server" in ln]
    assert len(lines) == 3, run.stderr
    assert any("'missing' failed: command not found" in ln for ln in lines)
    assert any("'silent' is still connecting" in ln for ln in lines)
    assert any("'dying' failed" in ln for ln in lines)
    assert "Traceback" not in run.stderr
    # The silent server's connect timeout is 30 s; the first request waits for the grace only (plus start-up).
    waited = fake_llm.requests[0].received_at - t0
    assert GRACE <= waited < GRACE + 8, waited
