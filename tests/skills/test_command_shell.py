"""A custom command's !`command` in the REPL's shape (an approver that answers): it asks like any Bash call, runs
under the session's hooks and sandbox when allowed, and the user's deny rules beat a command's allowed-tools."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli import paths
from agentcli.assembly.runtime import build
from agentcli.core.events import Notice
from agentcli.core.permissions import Approval
from agentcli.settings.config import load_settings
from tests.cli.helpers import ANTHROPIC, in_process_project
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.permissions.test_loop import Answering


def sent(fake: FakeLLM) -> str:
    content = fake.requests[-1].body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def run(settings: object, approver: Answering, prompt: str) -> list[str]:
    built = await build(settings, approver)  # type: ignore[arg-type]
    try:
        return [ev.text async for ev in built.agent.run(prompt) if isinstance(ev, Notice)]
    finally:
        await built.agent.aclose()


def test_a_project_commands_shell_line_asks_and_runs_once_allowed(tmp_path: Path, fake_llm: FakeLLM,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    body = "---\nallowed-tools: Bash(touch:*)\n---\nBefore: !`touch asked.txt && echo made`\n"
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {".claude/commands/mk.md": body})
    yes = Answering(Approval("allow"))
    fake_llm.push(Reply(text="ok"))
    notices = asyncio.run(run(settings, yes, "/mk"))
    assert [q.input for q in yes.asked] == [{"command": "touch asked.txt && echo made", "description": "/mk"}]
    assert (proj / "asked.txt").exists() and sent(fake_llm) == "Before: made"
    assert not [n for n in notices if "/mk" in n]

    no = Answering(Approval("deny", reason="not now"))
    (proj / "asked.txt").unlink()
    fake_llm.push(Reply(text="ok"))
    notices = asyncio.run(run(settings, no, "/mk"))
    assert len(no.asked) == 1 and not (proj / "asked.txt").exists()
    assert sent(fake_llm) == "Before: [not run: The user denied this Bash call]"
    assert [n for n in notices if "/mk" in n] == ["/mk: `touch asked.txt && echo made` was not run: The user denied "
                                                  "this Bash call (a project's command file grants nothing itself; "
                                                  "allow it in your settings)"]


def test_the_users_deny_rule_beats_a_commands_allowed_tools(tmp_path: Path, fake_llm: FakeLLM,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"README.md": "x\n"})
    (paths.home() / "commands").mkdir(parents=True)
    (paths.home() / "commands" / "mk.md").write_text("---\nallowed-tools: Bash(touch:*)\n---\n!`touch x.txt`\n")
    paths.user_config_file().write_text('[permissions]\ndeny = ["Bash(touch:*)"]\n')
    settings = load_settings(proj, {"model": ANTHROPIC})  # again, with the user's rule
    yes = Answering(Approval("allow"))
    fake_llm.push(Reply(text="ok"))
    notices = asyncio.run(run(settings, yes, "/mk"))
    assert yes.asked == [] and not (proj / "x.txt").exists()
    assert next(n for n in notices if "/mk" in n).startswith("/mk: `touch x.txt` was not run:")


def test_only_the_users_own_command_files_grant_their_allowed_tools(tmp_path: Path) -> None:
    """What the Bash call is decided with, per where the command file came from (the session's `run_call` is
    stood in for by one that records the grants in force and refuses, as a `-p` run would)."""
    from agentcli.settings.custom_commands import CustomCommand
    from agentcli.skills.commands import with_shell_output
    from agentcli.tools.base import ToolContext, ToolOutput

    ctx = ToolContext(project_root=tmp_path)
    seen: list[tuple[str, ...]] = []

    async def run_call(name: str, args: dict[str, object]) -> ToolOutput:
        seen.append(ctx.skill_allowed_tools)
        return ToolOutput("Permission to use Bash was not granted. Do not retry.", is_error=True,
                          metadata={"refused": True})

    ctx.run_call = run_call
    for scope in ("user", "project", "plugin"):
        command = CustomCommand("c", "X !`make all` Y", tmp_path / "c.md", scope, allowed_tools="Bash(make:*)")
        notices: list[tuple[str, str]] = []
        assert asyncio.run(with_shell_output(command, "", ctx, notices)) == \
            "X [not run: Permission to use Bash was not granted] Y"
        assert notices == [("warning", "/c: `make all` was not run: Permission to use Bash was not granted" + (
            "" if scope == "user" else f" (a {scope}'s command file grants nothing itself; allow it in your "
                                       "settings)"))]
    assert seen == [("Bash(make:*)",), (), ()] and ctx.skill_allowed_tools == ()
