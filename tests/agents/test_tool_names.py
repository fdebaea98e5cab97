"""Issue 26: one default tool set (the default and the `coding` preset are the same full list), and tool names
agentcli has no tool for, in a preset or an agent file, are one notice each (stream and doctor) instead of a
silent drop or an internal error; Claude Code's names with an honest equivalent are mapped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.paths import home
from agentcli.settings.presets import load_preset
from agentcli.tools.registry import BUILTIN_TOOLS, DEFAULT_TOOLS
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes import FakeLLM, Reply


def offered(fake: FakeLLM) -> set[str]:
    return {t["name"] for t in fake.requests[0].body["tools"]}


def notices(lines: list[dict[str, Any]]) -> list[str]:
    return [ln["text"] for ln in lines if ln.get("subtype") == "notice"]


def test_the_coding_preset_is_the_default_tool_set() -> None:
    assert tuple(load_preset("coding").tools) == DEFAULT_TOOLS
    for name in ("TodoWrite", "BashOutput", "KillShell", "NotebookEdit", "TaskOutput", "TaskStop"):
        assert name in DEFAULT_TOOLS
    assert set(DEFAULT_TOOLS) <= set(BUILTIN_TOOLS)


def test_a_plain_p_run_offers_todowrite(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json"], tmp_path,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    init = run.lines()[0]
    assert {"TodoWrite", "BashOutput", "KillShell", "NotebookEdit"} <= set(init["tools"])
    assert {"TodoWrite", "BashOutput", "KillShell", "NotebookEdit", "Task"} <= offered(fake_llm)


def test_a_preset_naming_unknown_tools_runs_and_says_so_once_each(tmp_path: Path, fake_llm: FakeLLM) -> None:
    (home() / "presets").mkdir(parents=True)
    (home() / "presets" / "mine.toml").write_text('tools = ["Read", "MultiEdit", "LS", "Frobnicate", "Zap"]\n')
    proj = git_repo(tmp_path / "p", {"a.txt": "x"})
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--preset", "mine", "--output-format", "stream-json"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    said = notices(run.lines())
    frob = [n for n in said if "'Frobnicate'" in n]
    assert frob == ["preset mine: agentcli has no tool named 'Frobnicate'; left out"]
    assert len([n for n in said if "'Zap'" in n]) == 1
    assert not any("MultiEdit" in n or "'LS'" in n for n in said)
    assert offered(fake_llm) >= {"Read", "Edit", "Glob"} and "Frobnicate" not in offered(fake_llm)
    doctor = agentcli(["doctor"], proj)
    assert "preset mine" in doctor.stdout and "'Frobnicate'" in doctor.stdout


def test_an_agent_file_naming_unknown_tools_is_one_notice_each(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "p", {".claude/agents/rev.md": "---\nname: rev\ndescription: reviews\n"
                                     "tools: Read, MultiEdit, SlashCommand, mcp__gh__issue\n---\nReview.\n"})
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    said = [n for n in notices(run.lines()) if "agent rev" in n]
    assert len(said) == 1 and "'SlashCommand'" in said[0], said
    doctor = agentcli(["doctor"], proj)
    assert "agent rev" in doctor.stdout and "'SlashCommand'" in doctor.stdout and "mcp__gh" not in doctor.stdout
