"""`auto` decides as `acceptEdits`, plus: a shell command runs without a question when the kernel sandbox confines
it (workspace-write, a working mechanism); with no sandbox, a read-only one, or execution config named, it asks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.core.state import SessionState
from agentcli.permissions.loader import builtin_rules
from agentcli.permissions.policy import RulePolicy
from agentcli.sandbox.core import Sandbox
from agentcli.sandbox.none import NoSandbox
from agentcli.sandbox.spec import SandboxSpec
from agentcli.tools.base import ToolContext
from agentcli.tools.bash import BashTool
from agentcli.tools.write import WriteTool


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = Path(os.path.realpath(tmp_path)) / "proj"
    (r / ".git" / "hooks").mkdir(parents=True)
    return r


def policy(root: Path, mode: str, sandbox: Sandbox | None) -> RulePolicy:
    ctx = ToolContext(project_root=root, shell_cwd=root, sandbox=sandbox)
    p = RulePolicy(ctx, builtin_rules(root), session=SessionState(mode))
    p.bind(ctx)
    return p


def sandbox(root: Path, mode: str = "workspace-write", working: bool = True) -> Sandbox:
    spec = SandboxSpec(mode, root, (root,), home=root.parent / "home", agentcli_home=root.parent / "home" / ".a")
    return Sandbox(spec) if working else Sandbox(spec, NoSandbox("none here"))


def bash(p: RulePolicy, command: str) -> str:
    return p.check(BashTool(), {"command": command}).behavior


def test_confined_commands_run_without_a_question(root: Path) -> None:
    p = policy(root, "auto", sandbox(root))
    assert bash(p, "make && python3 -m pytest -q") == "allow"
    assert bash(p, "rm -rf build && echo x > out.txt") == "allow"
    assert bash(policy(root, "default", sandbox(root)), "make && python3 -m pytest -q") == "ask"


@pytest.mark.parametrize("box", ["none", "read-only", "no-sandbox-object"])
def test_without_a_confining_sandbox_commands_ask(root: Path, box: str) -> None:
    sb = {"none": sandbox(root, working=False), "read-only": sandbox(root, "read-only"),
          "no-sandbox-object": None}[box]
    assert bash(policy(root, "auto", sb), "make") == "ask"


def test_execution_config_outside_paths_and_rules_still_ask_or_deny(root: Path) -> None:
    p = policy(root, "auto", sandbox(root))
    assert bash(p, "echo evil > .git/hooks/pre-commit") == "ask"
    assert bash(p, "echo x > lefthook.yml") == "ask"
    write = WriteTool()
    assert p.check(write, {"file_path": str(root / "src" / "a.py"), "content": "x"}).behavior == "allow"
    assert p.check(write, {"file_path": str(root / ".mcp.json"), "content": "{}"}).behavior == "ask"
    assert p.check(write, {"file_path": str(root.parent / "elsewhere.txt"), "content": "x"}).behavior == "ask"
    assert p.check(write, {"file_path": str(root / ".env"), "content": "x"}).behavior == "deny"
