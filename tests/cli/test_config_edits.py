"""Subcommands that edit the user's config files do it through the one config writer (agentcli.settings.writer):
the rest of the file stays as the user wrote it, and a part agentcli cannot edit is an error, not overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import agentcli, git_repo

GROUP = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo checked"}]}


def _project(tmp_path: Path, local: str) -> Path:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    (proj / ".claude").mkdir()
    (proj / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [GROUP]}}))
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(local)
    return proj


def test_hooks_import_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    mine = '# my own settings\nmodel = "m"  # why this model\n\n[[hooks.Stop]]  # ring a bell\n' \
           '[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "printf \'\\\\a\'"\n'
    proj = _project(tmp_path, mine)
    run = agentcli(["hooks", "import"], proj)
    assert run.status == 0, run.stderr
    text = (proj / ".agentcli" / "settings.local.toml").read_text()
    assert text.startswith(mine) and 'command = "echo checked"' in text, text
    assert "(0 new group(s))" in agentcli(["hooks", "import"], proj).stdout


def test_hooks_import_refuses_an_event_it_cannot_extend(tmp_path: Path) -> None:
    mine = '[hooks]\nPreToolUse = "not a list"\n'
    proj = _project(tmp_path, mine)
    run = agentcli(["hooks", "import"], proj)
    assert run.status == 2 and run.stderr.count("\n") == 1 and "'hooks.PreToolUse' is not a list" in run.stderr
    assert (proj / ".agentcli" / "settings.local.toml").read_text() == mine
