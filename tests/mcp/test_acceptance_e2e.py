"""Issue 13 acceptance, end to end: `agentcli -p` with real MCP servers against the fake LLM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.settings import trust
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def results(requests: list[Any]) -> dict[str, dict[str, Any]]:
    """tool_use_id → tool_result block of the last request (Anthropic shape)."""
    out: dict[str, dict[str, Any]] = {}
    for m in requests[-1].body["messages"]:
        if m["role"] == "user" and isinstance(m["content"], list):
            out.update({b["tool_use_id"]: b for b in m["content"] if b.get("type") == "tool_result"})
    return out


def text(block: dict[str, Any]) -> str:
    c = block["content"]
    return c if isinstance(c, str) else "".join(p.get("text", "") for p in c)


def test_real_servers_stdio_and_http(tmp_path: Path, fake_llm: FakeLLM, everything: list[str],
                                     time_server: list[str], everything_http: str) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "every": {"command": everything[0], "args": everything[1:], "timeout": 3000},
        "web": {"type": "http", "url": everything_http},
    }}))
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(
        f'mcp_grace_s = 20\n[mcp_servers.time]\ncommand = "{time_server[0]}"\n')
    trust.trust(proj)
    fake_llm.push(
        Reply(tool_calls=[ToolCall("mcp__time__get_current_time", {"timezone": "UTC"}, id="t1"),
                          ToolCall("mcp__every__echo", {"message": "hello from stdio"}, id="t2"),
                          ToolCall("mcp__web__get-sum", {"a": 2, "b": 40}, id="t3"),
                          ToolCall("mcp__every__get-tiny-image", {}, id="i1"),
                          ToolCall("mcp__every__trigger-long-running-operation", {"duration": 30, "steps": 2},
                                   id="s1")]),
        Reply(text="done"),
    )
    run = agentcli(["-p", "use the tools", "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose",
                    "--allowedTools", "mcp__every", "mcp__web__*"], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr + run.stdout
    init = run.lines()[0]
    assert sorted(init["mcp_servers"], key=lambda s: s["name"]) == [
        {"name": "every", "status": "connected"}, {"name": "time", "status": "connected"},
        {"name": "web", "status": "connected"}]
    got = results(fake_llm.requests)
    assert '"timezone": "UTC"' in text(got["t1"]) and not got["t1"].get("is_error")
    assert text(got["t2"]) == "Echo: hello from stdio"
    assert "42" in text(got["t3"])
    # an image result reaches a model that takes images, after the results; a slow call times out (3 s here)
    last = fake_llm.requests[-1].body["messages"][-1]["content"]
    images = [b for b in last if b.get("type") == "image"]
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"
    assert "attached below" in text(got["i1"])
    assert got["s1"]["is_error"] and "did not answer within 3 s" in text(got["s1"])
    # the servers' stderr went to their log files, not to the screen
    assert "Starting default (STDIO) server" in (paths.home() / "logs" / "mcp" / "every.log").read_text()
    assert "Starting default" not in run.stderr and "STDIO" not in run.stdout
    offered = {t["name"] for t in fake_llm.requests[0].body["tools"]}
    assert {"mcp__time__get_current_time", "mcp__every__echo", "mcp__web__get-sum"} <= offered

