"""Issue 26: what real servers do, and what the user and the model see of it — a crash's stderr, a tool list that
changes right after connect (2026-era server), a tool that runs only as a task, a question (`elicitation/create`)
in a headless run, and Claude Code's MCP_TOOL_TIMEOUT / MAX_MCP_OUTPUT_TOKENS."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.test_acceptance_e2e import results, text

SERVERS = Path(__file__).parent / "servers"


def server(name: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVERS / f"{name}.py")]}


def offered(fake: FakeLLM, i: int) -> set[str]:
    return {t["name"] for t in fake.requests[i].body.get("tools", [])}


def test_crash_notices_carry_the_servers_stderr(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {"crashing": server("crashing"), "dying": server("dying")}}
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__dying__crash", {}, id="c1")]), Reply(text="done"))
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__dying"], proj, provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if "MCP server" in ln]
    assert len(lines) == 2, run.stderr
    crashed = next(ln for ln in lines if "'crashing' failed" in ln)
    assert "its stderr ended: crashing: starting | crashing: DATABASE_URL is not set; cannot start" in crashed
    assert "\\x1b]0;pwned" in crashed and "\x1b" not in run.stderr  # shown, never acting on the terminal
    died = next(ln for ln in lines if "'dying' failed" in ln)
    assert "its stderr ended: dying: crash requested, giving up" in died
    assert "starting dying" not in died  # our own log header is not the server's stderr


def test_tools_added_right_after_connect_are_offered(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The server publishes its change while answering the first `tools/list`: only a client subscribed before
    that listing hears it."""
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {"late": server("late")}}
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__late__first", {}, id="f1")]),
                  Reply(tool_calls=[ToolCall("mcp__late__later", {}, id="l1")]), Reply(text="done"))
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__late"], proj, provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    assert "mcp__late__later" in offered(fake_llm, 1)
    assert text(results(fake_llm.requests)["l1"]) == "later result"


def test_task_only_tools_are_not_offered_and_said(tmp_path: Path, fake_llm: FakeLLM, everything: list[str]) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {"every": {"command": everything[0], "args": everything[1:]}}}
    fake_llm.push(Reply(text="done"))
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config), "--output-format",
                    "stream-json", "--verbose"], proj, provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    tools = offered(fake_llm, 0)
    assert "mcp__every__echo" in tools and "mcp__every__simulate-research-query" not in tools
    notices = [ln["text"] for ln in run.lines() if ln.get("subtype") == "notice"]
    assert any("'every': tools not offered: simulate-research-query (they run only as tasks" in n
               for n in notices), notices


def test_limits_and_a_question_in_a_headless_run(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = {"mcpServers": {"kit": server("kit")}}
    env = {**provider_env(fake_llm, ANTHROPIC), "MCP_TOOL_TIMEOUT": "1500", "MAX_MCP_OUTPUT_TOKENS": "100"}
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__kit__slow", {"seconds": 30}, id="s1"),
                                    ToolCall("mcp__kit__big", {"chars": 5000}, id="b1"),
                                    ToolCall("mcp__kit__ask", {}, id="a1")]), Reply(text="done"))
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--mcp-config", json.dumps(config),
                    "--allowedTools", "mcp__kit"], proj, env, timeout=120)
    assert run.status == 0, run.stderr
    got = results(fake_llm.requests)
    assert got["s1"]["is_error"] and "did not answer within 1.5 s" in text(got["s1"])
    big = text(got["b1"])
    assert big.startswith("y" * 400) and "y" * 401 not in big and "MAX_MCP_OUTPUT_TOKENS" in big
    assert text(got["a1"]) == "action=decline colour="
    assert "MCP server 'kit' asked for input ('Which colour?'); declined: nobody can answer" in run.stderr
