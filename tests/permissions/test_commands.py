"""`agentcli permissions list|add|rm|check`, run as the CLI runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentcli.commands import permissions as cmd
from tests.permissions.helpers import make_project


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def run(root: Path, *args: str) -> int:
    return cmd.main(["-C", str(root), *args])


def test_add_list_rm(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "add", "Bash(npm test *)") == 0
    assert run(root, "add", "--deny", "--scope", "project", "Bash(rm:*)") == 0
    assert run(root, "add", "--ask", "--scope", "user", "WebFetch") == 0
    capsys.readouterr()
    assert run(root, "list", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    mine = {(r["behavior"], r["rule"], r["source"]) for r in listed["rules"] if r["source"] != "builtin"}
    assert mine == {
        ("allow", "Bash(npm test *)", "local"), ("deny", "Bash(rm:*)", "project"), ("ask", "WebFetch", "user"),
    }
    assert any(r["source"] == "builtin" and r["rule"] == "Read(.env*)" for r in listed["rules"])
    assert run(root, "list") == 0
    text = capsys.readouterr().out
    assert "settings.local.toml" in text and text.startswith("mode: default")
    assert run(root, "rm", "Bash(npm test *)") == 0
    assert run(root, "rm", "Bash(npm test *)") == 1
    assert "no rule" in capsys.readouterr().err


def test_add_rejects_bad_rules(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "add", "Bash(npm") == 2
    assert "invalid rule" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["Bash", "git status"], "allow by mode"), (["Bash", "git status; rm -rf ~"], "ask by default"),
        (["Read", ".env"], "deny by rule"), (["Bash", "rm x", "--mode", "plan"], "deny by mode"),
    ],
)
def test_check(root: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str) -> None:
    assert run(root, "check", *args) == 0
    assert capsys.readouterr().out.startswith(expected)


def test_through_the_real_cli(root: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agentcli", "permissions", "-C", str(root), "check", "Bash", "ls"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert out.returncode == 0 and out.stdout.startswith("allow"), out.stderr
