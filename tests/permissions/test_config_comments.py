"""`agentcli permissions add` / `rm` edit one array of the user's file and keep everything else as written."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.permissions.helpers import make_project

USER_CONFIG = '''\
# My agentcli config — hand-written, please keep my notes.
model = "anthropic/claude-sonnet-4-5"  # the default model

[permissions]
# Things I run all day:
allow = [
  "Bash(git status)",  # safe
  "Read",
]
deny = ["Bash(rm:*)"]  # never

# Local models live here.
[providers.local]
base_url = "http://127.0.0.1:8080/v1"
'''


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentcli", "permissions", *args], cwd=cwd, env=os.environ.copy(),
                          capture_output=True, text=True, timeout=60, check=False)


def test_permissions_add_and_rm_keep_comments_and_layout(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    config = Path(os.environ["AGENTCLI_HOME"]) / "config.toml"
    config.write_text(USER_CONFIG, encoding="utf-8")

    added = _cli(root, "add", "Bash(npm test *)", "--scope", "user")
    assert added.returncode == 0, added.stderr
    text = config.read_text(encoding="utf-8")
    assert text == USER_CONFIG.replace('  "Read",\n', '  "Read",\n  "Bash(npm test *)",\n')
    assert tomllib.loads(text)["permissions"]["allow"] == ["Bash(git status)", "Read", "Bash(npm test *)"]

    asked = _cli(root, "add", "WebFetch", "--ask", "--scope", "user")
    assert asked.returncode == 0, asked.stderr
    text = config.read_text(encoding="utf-8")
    assert "# Things I run all day:" in text and '"Bash(git status)",  # safe' in text
    assert 'deny = ["Bash(rm:*)"]  # never' in text and "# Local models live here." in text
    assert tomllib.loads(text)["permissions"]["ask"] == ["WebFetch"]

    removed = _cli(root, "rm", "Bash(npm test *)", "--scope", "user")
    assert removed.returncode == 0, removed.stderr
    assert config.read_text(encoding="utf-8") == text.replace('  "Bash(npm test *)",\n', "")
