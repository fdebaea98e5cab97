"""A custom slash command's !`command`s (Claude Code's format) run before the prompt is sent, through the session's
Bash path: what the fake model receives holds their output; what was not allowed is refused with a notice; a
project's command file grants nothing itself, the user's own `allowed-tools` do."""

from __future__ import annotations

from pathlib import Path

from agentcli import paths
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM

PROJECT_COMMAND = """---
description: summarise the state of the work
allowed-tools: Bash(touch:*), Bash(git status:*)
---
## Context
- Branch: !`git branch --show-current`
- Missing ref: !`git rev-parse --verify no-such-ref`
- Marker: !`touch made-by-project-command`

Summarise for $ARGUMENTS.
"""

USER_COMMAND = """---
allowed-tools: Bash(touch:*)
---
Made: !`touch made-by-user-command && echo touched`
"""


def prompt_text(fake: FakeLLM) -> str:
    first = fake.requests[0].body["messages"][0]["content"]
    return first if isinstance(first, str) else "".join(b.get("text", "") for b in first)


def test_project_command_runs_what_permissions_allow_and_refuses_the_rest(tmp_path: Path,
                                                                         fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n", ".claude/commands/state.md": PROJECT_COMMAND})
    fake_llm.push(Reply(text="summary"))
    run = agentcli(["-p", "/state the reviewer", "--model", ANTHROPIC, "--allowedTools",
                    "Bash(git branch:*)", "Bash(git rev-parse:*)"], proj, provider_env(fake_llm, ANTHROPIC),
                   timeout=120)
    assert run.status == 0, run.stderr
    sent = prompt_text(fake_llm)
    branch = "master" if "- Branch: master" in sent else "main"
    assert f"- Branch: {branch}\n" in sent, sent
    assert "- Missing ref: fatal: Needed a single revision\nExit code 128\n" in sent, sent
    assert "- Marker: [not run: " in sent and "Summarise for the reviewer." in sent, sent
    assert not (proj / "made-by-project-command").exists()  # the file's own allowed-tools granted nothing
    notices = [ln for ln in run.stderr.splitlines() if "/state:" in ln]
    assert len(notices) == 2, run.stderr
    assert "`git rev-parse --verify no-such-ref` failed (exit status 128)" in notices[0]
    assert "`touch made-by-project-command` was not run:" in notices[1]
    assert "a project's command file grants nothing itself" in notices[1]


def test_the_users_own_command_is_granted_by_its_allowed_tools(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    (paths.home() / "commands").mkdir(parents=True)
    (paths.home() / "commands" / "mark.md").write_text(USER_COMMAND)
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "/mark", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    assert prompt_text(fake_llm) == "Made: touched"
    assert (proj / "made-by-user-command").exists()
    assert "/mark" not in run.stderr
