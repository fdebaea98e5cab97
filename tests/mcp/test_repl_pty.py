"""The REPL with real MCP servers, in a pseudo-terminal: /mcp, a server prompt as a command, an @server:uri
resource attached to a prompt."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.settings import trust
from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term, child_env


@pytest.fixture
def term(tmp_path: Path, fake_llm: FakeLLM, everything: list[str], time_server: list[str]) -> Iterator[Term]:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".agentcli").mkdir()
    (root / ".agentcli" / "settings.local.toml").write_text(
        "mcp_grace_s = 20\n"
        f"[mcp_servers.every]\ncommand = {json.dumps(everything[0])}\nargs = {json.dumps(everything[1:])}\n"
        f"[mcp_servers.time]\ncommand = {json.dumps(time_server[0])}\n"
        "[mcp_servers.broken]\ncommand = \"/nonexistent/server\"\n")
    trust.trust(root)
    t = Term(["--model", "openai/fake-model"], root, child_env(fake_llm.openai_url))
    yield t
    t.close()


def test_mcp_status_prompt_and_resource(term: Term, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="It is sunny."), Reply(text="Read it."))
    term.prompt()
    term.line("/mcp")
    shown = term.expect("broken [failed")
    shown += term.expect("\n")
    assert "every [connected, " in term.out and "time [connected, 2 tools]" in term.out
    assert "command not found: /nonexistent/server" in shown
    term.prompt()
    term.line("/mcp tools time")
    term.expect("mcp__time__convert_time  (read-only)")
    term.prompt()
    term.line("/mcp__every__args-prompt Paris")
    term.expect("It is sunny.")
    term.prompt()
    assert "What's weather in Paris?" in json.dumps(fake_llm.requests[-1].body["messages"])
    term.line("summarise @every:demo://resource/static/document/architecture.md please")
    term.expect("Read it.")
    sent = json.dumps(fake_llm.requests[-1].body["messages"])
    assert "(MCP resource)" in sent and "Architecture" in sent


def test_escape_cancels_a_running_mcp_call(term: Term, fake_llm: FakeLLM) -> None:
    fake_llm.push(
        Reply(text="Starting.", tool_calls=[ToolCall("mcp__every__trigger-long-running-operation",
                                                     {"duration": 60, "steps": 60})]),
        Reply(text="Fresh answer."),
    )
    term.prompt()
    term.line("run the long operation")
    term.expect("Starting.")
    term.expect("trigger-long-running-operation")
    sent = time.monotonic()
    term.send("\x1b")
    term.expect("Interrupted")
    elapsed = time.monotonic() - sent
    # the operation runs 60 s: ending well before it proves the call was cancelled, not waited for (a tighter
    # bound only measures how loaded the machine is)
    assert elapsed < 15.0, f"Esc took {elapsed * 1000:.0f} ms"
    term.prompt()
    term.line("again")
    term.expect("Fresh answer.")
    assert "Unhandled exception" not in term.out
    assert "[Request interrupted by user]" in json.dumps(fake_llm.requests[-1].body["messages"])


def test_a_servers_question_is_asked_in_the_repl(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """`elicitation/create` during a tool call: the REPL asks, the answer (typed by the schema) goes back."""
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".agentcli").mkdir()
    (root / ".agentcli" / "settings.local.toml").write_text("mcp_grace_s = 60\n")  # the first turn waits for kit
    kit = Path(__file__).parent / "servers" / "kit.py"
    config = {"mcpServers": {"kit": {"command": sys.executable, "args": [str(kit)]}}}
    fake_llm.push(Reply(text="Asking.", tool_calls=[ToolCall("mcp__kit__ask", {}, id="a1")]), Reply(text="Done."))
    t = Term(["--model", "openai/fake-model", "--mcp-config", json.dumps(config), "--allowedTools", "mcp__kit"],
             root, child_env(fake_llm.openai_url, MCP_TIMEOUT="60000"))
    try:
        t.prompt()
        t.line("ask me")
        t.expect("MCP server 'kit' asks: Which colour?", timeout=60)
        t.expect("choice [1-3]")
        t.send("1")
        t.expect("Colour:")
        t.line("blue")
        t.expect("Done.", timeout=60)
    finally:
        t.close()
    sent = json.dumps(fake_llm.requests[-1].body["messages"])
    assert "action=accept colour=blue" in sent
