"""A stdio MCP server with `sandbox = true` runs under agentcli's kernel sandbox: it can write in the project and
nowhere else, while the same server unconfined can."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.test_acceptance_e2e import results, text

WRITER = str(Path(__file__).parent / "servers" / "writer.py")


def test_sandboxed_server_writes_only_in_the_project(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    outside = tmp_path / "home-like"
    outside.mkdir()
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text("mcp_grace_s = 30\n")
    config = {"mcpServers": {
        "boxed": {"command": sys.executable, "args": [WRITER], "sandbox": True},
        "free": {"command": sys.executable, "args": [WRITER]},
    }}
    fake_llm.push(
        Reply(tool_calls=[ToolCall("mcp__boxed__write", {"path": str(outside / "boxed.txt")}, id="b1"),
                          ToolCall("mcp__boxed__write", {"path": str(proj / "boxed.txt")}, id="b2"),
                          ToolCall("mcp__free__write", {"path": str(outside / "free.txt")}, id="f1")]),
        Reply(text="done"),
    )
    run = agentcli(["-p", "write", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__boxed", "mcp__free"], proj, provider_env(fake_llm, ANTHROPIC),
                   timeout=120)
    assert run.status == 0, run.stderr
    got = results(fake_llm.requests)
    assert text(got["b2"]) == "written" and (proj / "boxed.txt").exists()
    assert not (outside / "boxed.txt").exists(), text(got["b1"])
    assert text(got["f1"]) == "written" and (outside / "free.txt").exists()
