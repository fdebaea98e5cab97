"""The approval prompt in a real pseudo-terminal (pexpect): once, remember (scopes and durations, and the rule
lands in the right file), deny with a reason, edit, and the plan review."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

import pexpect
import pytest

from agentcli import paths

DRIVER = Path(__file__).with_name("approval_driver.py")


def drive(
    root: Path, request: dict[str, Any], answers: list[tuple[str, str]], editor: str = ""
) -> tuple[dict[str, Any], str]:
    """Answer each (expected text, reply) in turn; return the driver's result and everything shown."""
    env = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1", "VISUAL": "", "EDITOR": editor}
    child = pexpect.spawn(sys.executable, [str(DRIVER), str(root), json.dumps(request)], env=env,
                          encoding="utf-8", timeout=20, dimensions=(50, 200))
    shown = []
    try:
        for expected, reply in answers:
            child.expect(expected)
            shown.append(child.before + child.after)
            if reply == "^C":
                child.sendcontrol("c")
            else:
                child.send(reply)
        child.expect(r"RESULT (\{.*\})\r?\n")
        shown.append(child.before)
        return json.loads(child.match.group(1)), "".join(shown)
    finally:
        child.close(force=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    (r / ".git").mkdir(parents=True)
    (r / "src").mkdir()
    (r / "src" / "a.py").write_text("a = 1\n")
    return r


BASH = {"tool": "Bash", "input": {"command": "git diff && npm test -- -w"}, "reason": "`npm test` needs approval"}


def test_yes_once_shows_what_will_run(root: Path) -> None:
    result, shown = drive(root, BASH, [("choice", "1")])
    assert result == {"behavior": "allow", "reason": None, "updated_input": None, "remember": None, "scope": None}
    assert "git diff && npm test -- -w" in shown and "`npm test` needs approval" in shown


@pytest.mark.parametrize(
    ("which", "duration", "rule", "file"),
    [
        ("1", "1", "Bash(npm test -- -w)", None),
        ("2", "2", "Bash(npm test *)", ".agentcli/settings.local.toml"),
        ("3", "3", "Bash", "user"),
    ],
)
def test_remember_each_scope(root: Path, which: str, duration: str, rule: str, file: str | None) -> None:
    result, shown = drive(root, BASH, [("choice", "2"), ("choice", which), ("choice", duration)])
    assert result["behavior"] == "allow" and result["remember"] == rule
    assert f"saving: {rule}" in shown
    if file is None:
        assert result["scope"] == "session" and result["session_rules"] == [rule]
        assert not (root / ".agentcli").exists()
        return
    target = paths.user_config_file() if file == "user" else root / file
    assert result["scope"] == ("user" if file == "user" else "local")
    assert tomllib.loads(target.read_text())["permissions"]["allow"] == [rule]


def test_remember_a_path_glob(root: Path) -> None:
    req = {"tool": "Edit", "input": {"file_path": "src/a.py", "old_string": "a = 1", "new_string": "a = 2"}}
    result, shown = drive(root, req, [("choice", "2"), ("choice", "2"), ("choice", "2")])
    assert result["remember"] == "Edit(src/**)" and result["scope"] == "local"
    assert "-a = 1" in shown and "+a = 2" in shown  # the diff was shown
    saved = tomllib.loads((root / ".agentcli/settings.local.toml").read_text())
    assert saved["permissions"]["allow"] == ["Edit(src/**)"]


def test_deny_with_reason_reaches_the_model(root: Path) -> None:
    result, _ = drive(root, {"loop": "touch x.txt"}, [("choice", "3"), ("why", "use the Write tool\r")])
    assert result["is_error"] and "use the Write tool" in result["told"]
    assert not (root / "x.txt").exists()


def test_edit_runs_the_edited_command_and_says_so(root: Path) -> None:
    # the prompt starts with the command as default text: erase it and type another
    result, _ = drive(root, {"loop": "echo one > out.txt"}, [("choice", "4"), ("edit", "\x15echo two > out.txt\r")])
    assert (root / "out.txt").read_text() == "two\n"
    assert "echo two > out.txt" in result["told"] and not result["is_error"]


def test_edit_in_the_editor(root: Path) -> None:
    result, shown = drive(root, {"loop": "echo one > out.txt"}, [("choice", "5")], editor="sed -i s/one/three/")
    assert "edit in sed" in shown
    assert (root / "out.txt").read_text() == "three\n" and "echo three > out.txt" in result["told"]


def test_interrupt_denies(root: Path) -> None:
    result, _ = drive(root, BASH, [("choice", "^C")])
    assert result["behavior"] == "deny" and "interrupted" in result["reason"]


def test_plan_review(root: Path) -> None:
    result, shown = drive(root, {"plan": "1. do a\n2. do b"}, [("choice", "1")])
    assert result == {"behavior": "allow", "mode": "acceptEdits", "reason": None}
    assert "2. do b" in shown
    result, _ = drive(root, {"plan": "p"}, [("choice", "3"), ("change", "add tests\r")])
    assert result == {"behavior": "deny", "mode": None, "reason": "add tests"}
