"""One plugin with every part (command, skill, hook, MCP server) installed from a marketplace that also holds the
real vendored one: untrusted, its hook and MCP server do not run; trusted, all work in one scripted run;
uninstalled, all are gone."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.plugins.helpers import kit_plugin, marketplace

TOOL = "mcp__plugin_kit_writer__write"


def _run(fake: FakeLLM, proj: Path, home: Path, prompt: str, *extra: str) -> tuple[dict[str, object], str]:
    run = agentcli(["-p", prompt, "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose", *extra],
                   proj, {**provider_env(fake, ANTHROPIC), "HOME": str(home)})
    assert run.status == 0, run.stderr
    return json.loads(run.stdout.splitlines()[0]), run.stdout


def test_every_part_of_a_plugin_and_its_trust(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home, marker = tmp_path / "home", tmp_path / "hook-ran"
    (Path(os.environ["AGENTCLI_HOME"]) / "config.toml").write_text("mcp_grace_s = 20\n")
    market = marketplace(tmp_path / "market")
    kit_plugin(market, marker)
    assert agentcli(["plugin", "marketplace", "add", str(market)], proj).status == 0
    assert agentcli(["plugin", "install", "kit@anthropic-agent-skills"], proj).status == 0

    fake_llm.push(Reply(text="hi"))
    init, out = _run(fake_llm, proj, home, "/kit:hello world")
    assert not marker.exists()  # untrusted: its hook did not run
    assert TOOL not in init["tools"] and "hooks do not run until you trust it" in out
    assert "kit:greet" in init["skills"] and "kit:hello" in init["slash_commands"]
    assert "Say hello to world from kit." in json.dumps(fake_llm.requests[0].body["messages"])

    assert agentcli(["plugin", "trust", "kit"], proj).status == 0
    listed = agentcli(["plugin", "list"], proj).stdout
    assert "kit@anthropic-agent-skills  1.0.0  enabled, trusted" in listed
    target = proj / "out.txt"
    task = {"description": "help", "prompt": "help me", "subagent_type": "kit:helper"}
    fake_llm.push(Reply(tool_calls=[ToolCall("Skill", {"skill": "kit:greet"})]),
                  Reply(tool_calls=[ToolCall(TOOL, {"path": str(target)})]),
                  Reply(tool_calls=[ToolCall("Task", task)]), Reply(text="helped"), Reply(text="done"))
    init, out = _run(fake_llm, proj, home, "greet and write", "--allowedTools", TOOL)
    ran = marker.read_text()
    assert ran.startswith("ran\n")  # (the subagent's prompt may fire it too)
    assert target.read_text() == "x"
    assert "Greet warmly." in json.dumps(fake_llm.requests[2].body["messages"])
    assert "kit:helper" in init["agents"]  # type: ignore[operator]
    assert "You help." in json.dumps(fake_llm.requests[4].body.get("system"))
    assert "helped" in json.dumps(fake_llm.requests[5].body["messages"][-1])

    assert agentcli(["plugin", "uninstall", "kit"], proj).status == 0
    fake_llm.push(Reply(text="gone"))
    init, _ = _run(fake_llm, proj, home, "hi")
    assert marker.read_text() == ran and init["skills"] == [] and "kit:hello" not in init["slash_commands"]
    assert not any(name.startswith("mcp__plugin_kit") for name in init["tools"])  # type: ignore[union-attr]
