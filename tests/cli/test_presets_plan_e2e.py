"""Presets and plan mode through the real CLI (issue 6 acceptance 2 and 5)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def offered_tools(fake: FakeLLM) -> set[str]:
    return {t["name"] for t in fake.requests[0].body.get("tools", [])}


def test_readonly_preset_offers_only_read_only_tools(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="looked"))
    run = agentcli(["-p", "look around", "--preset", "readonly", "--model", ANTHROPIC], tmp_path,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert offered_tools(fake_llm) == {"Read", "Glob", "Grep"}


def test_unknown_preset_is_a_config_error(tmp_path: Path, fake_llm: FakeLLM) -> None:
    run = agentcli(["-p", "x", "--preset", "nope", "--model", ANTHROPIC], tmp_path, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 2 and "readonly" in run.stderr and "Traceback" not in run.stderr


def test_plan_mode_prints_the_plan_and_changes_nothing(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "p", {"a.py": "x = 1\n"})
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Write", {"file_path": "a.py", "content": "boom"}),
                          ToolCall("Bash", {"command": "rm a.py"})]),
        Reply(tool_calls=[ToolCall("ExitPlanMode", {"plan": "1. Change x to 2 in a.py\n2. Run tests"})]),
    )
    run = agentcli(["-p", "plan a change", "--permission-mode", "plan", "--model", ANTHROPIC, "--output-format",
                    "json"], proj, provider_env(fake_llm, ANTHROPIC))
    assert (proj / "a.py").read_text() == "x = 1\n"
    result = run.json()
    assert result["result"] == "1. Change x to 2 in a.py\n2. Run tests"
    assert "ExitPlanMode" in offered_tools(fake_llm)
    assert {d["tool_name"] for d in result["permission_denials"]} == {"Write", "Bash"}


def test_bypass_still_honours_deny_rules(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "p", {"a.py": "x = 1\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "rm a.py"})]), Reply(text="ok"))
    run = agentcli(["-p", "x", "--dangerously-skip-permissions", "--disallowedTools", "Bash(rm:*)",
                    "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 3
    assert (proj / "a.py").exists()
