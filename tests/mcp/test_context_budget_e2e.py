"""Acceptance 5: with 60 MCP tools across two servers, the first request stays under the schema budget, and the
model can still find and call any one of them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.test_acceptance_e2e import results, text

SERVERS = Path(__file__).parent / "servers"
WINDOW = 200_000  # claude-sonnet-4-5's context window in the catalog
BUDGET = int(0.10 * WINDOW)


def tokens(tools: list[dict[str, object]]) -> int:
    return len(json.dumps(tools, separators=(",", ":"))) // 4


def test_sixty_tools_deferred_behind_search(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    many = str(SERVERS / "many.py")
    config = {"mcpServers": {"alpha": {"command": sys.executable, "args": [many, "alpha", "30"]},
                             "beta": {"command": sys.executable, "args": [many, "beta", "30"]}}}
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text("mcp_grace_s = 20\n")
    fake_llm.push(
        Reply(tool_calls=[ToolCall("McpToolSearch", {"query": "beta record set 27"}, id="s1")]),
        Reply(tool_calls=[ToolCall("mcp__beta__beta_tool_27", {"query": "q"}, id="c1"),
                          ToolCall("mcp__alpha__alpha_tool_3", {"query": "direct"}, id="c2")]),
        Reply(text="found it"),
    )
    run = agentcli(["-p", "find the beta tool", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__alpha", "mcp__beta"], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    first = fake_llm.requests[0].body["tools"]
    mcp_tools = [t for t in first if t["name"].startswith("mcp__") or t["name"] == "McpToolSearch"]
    assert [t["name"] for t in mcp_tools] == ["McpToolSearch"]
    assert tokens(mcp_tools) < BUDGET
    assert "mcp__beta__beta_tool_27" in mcp_tools[0]["description"]  # every deferred tool is named
    # all 60 schemas would have passed the budget
    assert BUDGET < 60 * 420
    second = {t["name"] for t in fake_llm.requests[1].body["tools"]}
    assert "mcp__beta__beta_tool_27" in text(results(fake_llm.requests[:2])["s1"])
    assert "mcp__beta__beta_tool_27" in second
    got = results(fake_llm.requests)
    assert text(got["c1"]) == "beta tool 27 answered q"
    assert text(got["c2"]) == "alpha tool 3 answered direct"  # a deferred tool called by name still runs
