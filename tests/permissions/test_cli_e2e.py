"""Permissions seen from outside: the real `agentcli -p` against the fake LLM server."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def test_readonly_preset_offers_only_read_only_tools(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(Reply(text="looked"))
    run = agentcli(["-p", "look", "--preset", "readonly", "--model", ANTHROPIC, "--output-format", "json"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    offered = [t["name"] for t in fake_llm.requests[0].body["tools"]]
    assert sorted(offered) == ["Glob", "Grep", "Read"]


def test_plan_mode_prints_the_plan_and_changes_nothing(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Write", {"file_path": "a.py", "content": "changed"}),
                          ToolCall("Bash", {"command": "touch made.txt"})]),
        Reply(tool_calls=[ToolCall("ExitPlanMode", {"plan": "1. change a.py\n2. add tests"})]),
        Reply(text="done"),
    )
    run = agentcli(["-p", "plan it", "--permission-mode", "plan", "--model", ANTHROPIC, "--output-format", "json"],
                   proj, provider_env(fake_llm, ANTHROPIC))
    result = run.json()
    assert result["result"] == "1. change a.py\n2. add tests", run.stderr
    assert (proj / "a.py").read_text() == "a = 1\n" and not (proj / "made.txt").exists()


def test_a_project_rule_applies_in_a_new_session(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    assert agentcli(["permissions", "add", "Bash(touch *)"], proj).status == 0
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="ok"))
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch a && rm a.py"})]), Reply(text="ok"))
    env = provider_env(fake_llm, ANTHROPIC)
    first = agentcli(["-p", "make it", "--model", ANTHROPIC, "--output-format", "json"], proj, env)
    assert first.status == 0 and first.json()["permission_denials"] == [], first.stderr
    assert (proj / "made.txt").exists()
    second = agentcli(["-p", "again", "--model", ANTHROPIC, "--output-format", "json"], proj, env)
    assert second.status == 3 and (proj / "a.py").exists()  # the rule names touch, not what follows it


def test_allowed_tools_flag_takes_rules_with_spaces(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="ok"))
    run = agentcli(["-p", "make it", "--model", ANTHROPIC, "--allowedTools", "Bash(touch *) Read",
                    "--output-format", "json"], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0 and run.json()["permission_denials"] == [], run.stderr
    assert (proj / "made.txt").exists()
