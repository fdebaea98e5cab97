"""Shared pieces for the permission tests: a real project tree, policies built from rule texts, fake tools."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.core.state import SessionState
from agentcli.modes import parse_mode
from agentcli.permissions.loader import builtin_rules
from agentcli.permissions.policy import RulePolicy
from agentcli.permissions.rules import parse_rule
from agentcli.tools.base import ToolContext, ToolOutput

MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
LETTER = {"A": "allow", "Q": "ask", "D": "deny"}


def make_project(base: Path) -> Path:
    """root/ with src/a.py, .env, a symlink to a directory outside and one to .env; base/outside/ beside it."""
    base = Path(os.path.realpath(base))
    root, outside = base / "proj", base / "outside"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "secret").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print('a')\n")
    (root / ".env").write_text("TOKEN=x\n")
    outside.mkdir()
    (outside / "x").write_text("outside\n")
    (root / "link_out").symlink_to(outside)
    (root / "src" / "escape").symlink_to(outside)
    (root / "link_env").symlink_to(root / ".env")
    return root


def make_policy(
    root: Path, mode: str = "default", allow: tuple[str, ...] = (), ask: tuple[str, ...] = (),
    deny: tuple[str, ...] = (), add_dirs: tuple[Path, ...] = (),
) -> RulePolicy:
    policy = RulePolicy(ToolContext(project_root=root, add_dirs=add_dirs), builtin_rules(),
                        session=SessionState(parse_mode(mode)))
    for behavior, texts in (("allow", allow), ("ask", ask), ("deny", deny)):
        for t in texts:
            policy.add(parse_rule(t, behavior, "flag"))  # type: ignore[arg-type]
    return policy


@dataclass
class FakeTool:
    """A tool with chosen annotations, for the rules that only look at names and flags."""

    name: str
    read_only: bool = False
    destructive: bool = False
    edits_files: bool = False
    description: str = "fake"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("ok")
