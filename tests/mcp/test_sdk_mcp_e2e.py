"""SDK MCP servers end to end: `agentcli` as a real process. Without an SDK driving it (plain `-p`), an
`"type": "sdk"` entry in `--mcp-config` is one notice and a failed server; the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.test_acceptance_e2e import results, text

SDK_CONFIG = json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calculator"}}})


def test_plain_print_mode_with_an_sdk_server_is_a_notice_not_a_crash(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n", ".agentcli/settings.local.toml": "mcp_grace_s = 60\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__calc__add", {"a": 1, "b": 2}, id="c1")]), Reply(text="went on"))
    run = agentcli(["-p", "add", "--model", ANTHROPIC, "--mcp-config", SDK_CONFIG, "--output-format", "stream-json",
                    "--verbose", "--allowedTools", "mcp__calc"], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    lines = run.lines()
    assert lines[0]["mcp_servers"] == [{"name": "calc", "status": "failed"}]
    assert lines[-1]["result"] == "went on"
    got = results(fake_llm.requests)["c1"]
    assert got["is_error"] and "'calc' is not connected" in text(got) and "no SDK drives this run" in text(got)
    notices = [ln["text"] for ln in lines if ln.get("subtype") == "notice" and "MCP server 'calc'" in ln["text"]]
    assert len(notices) == 1 and "no SDK drives this run" in notices[0], run.stdout
    assert "Traceback" not in run.stderr


def test_a_project_file_cannot_declare_an_sdk_server(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n", ".mcp.json": SDK_CONFIG})
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(
        '[mcp_servers.calc]\ntype = "sdk"\nname = "calculator"\n')
    fake_llm.push(Reply(text="fine"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "fine"
    assert "type 'sdk' is only accepted from --mcp-config" in run.stderr
