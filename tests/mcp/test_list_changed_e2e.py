"""Acceptance 2: a server's tool-list change makes the new tool appear on the next turn, with no restart."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.test_acceptance_e2e import results, text

SERVERS = Path(__file__).parent / "servers"


def offered(fake: FakeLLM, i: int) -> set[str]:
    return {t["name"] for t in fake.requests[i].body.get("tools", [])}


def test_new_tool_appears_next_turn(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {"grow": {"command": sys.executable, "args": [str(SERVERS / "growing.py")]}}}
    fake_llm.push(
        Reply(tool_calls=[ToolCall("mcp__grow__grow", {}, id="g1")]),
        Reply(tool_calls=[ToolCall("mcp__grow__fresh", {}, id="f1")]),
        Reply(text="used the new tool"),
    )
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text("mcp_grace_s = 20\n")
    run = agentcli(["-p", "grow", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__grow"], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert "mcp__grow__grow" in offered(fake_llm, 0) and "mcp__grow__fresh" not in offered(fake_llm, 0)
    assert "mcp__grow__fresh" in offered(fake_llm, 1)
    assert text(results(fake_llm.requests)["f1"]) == "fresh result"


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_everything_notifies_over_http_transports(tmp_path: Path, fake_llm: FakeLLM, transport: str,
                                                  request: pytest.FixtureRequest) -> None:
    """server-everything registers tools once it knows the client's capabilities and announces them with
    `notifications/tools/list_changed`: agentcli re-lists over streamable HTTP and legacy SSE alike."""
    url = request.getfixturevalue("everything_http" if transport == "http" else "everything_sse")
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {"every": {"type": transport, "url": url}}}
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__every__get-roots-list", {}, id="r1")]), Reply(text="ok"))
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text("mcp_grace_s = 20\n")
    run = agentcli(["-p", "roots", "--model", ANTHROPIC, "--mcp-config", json.dumps(config)], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert "mcp__every__get-roots-list" in offered(fake_llm, 0)
    assert str(proj) in text(results(fake_llm.requests)["r1"])
