"""Acceptance 4: permission rules and plan mode apply to MCP tools as to built-in ones.

Each row: the server's scope (who configured it), the tool's annotations, the rules, the tool name, and the
expected answer in default, acceptEdits, plan, bypassPermissions (A allow, Q ask, D deny).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentcli.mcp.config import parse_entry
from agentcli.mcp.tool import McpTool, tool_name
from agentcli.tools.registry import load_tool
from tests.permissions.helpers import LETTER, MODES, make_policy, make_project

RO = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}
RO_OPEN = {**RO, "openWorldHint": True}
RO_DESTRUCTIVE = {"readOnlyHint": True, "destructiveHint": True}
WRITE = {"readOnlyHint": False, "destructiveHint": False}
NONE: dict[str, Any] = {}

ROWS: list[tuple[str, str, dict[str, Any], dict[str, tuple[str, ...]], str]] = [
    # no rules: a believed read-only tool runs where reads do (plan mode too); everything else asks
    ("user", "lookup", RO, {}, "AAAA"),
    ("local", "lookup", RO, {}, "AAAA"),
    ("flag", "lookup", RO, {}, "AAAA"),
    ("project", "lookup", RO, {}, "QQDA"),  # a repository's server: its claims are not believed
    ("user", "lookup", RO_OPEN, {}, "QQDA"),  # reaches the outside world: not a mere read
    ("user", "lookup", RO_DESTRUCTIVE, {}, "QQDA"),
    ("user", "lookup", WRITE, {}, "QQDA"),
    ("user", "lookup", NONE, {}, "QQDA"),
    # allow rules: server-wide, one tool, wildcard; never a prefix of another server or tool
    ("user", "lookup", WRITE, {"allow": ("mcp__srv",)}, "AADA"),
    ("user", "lookup", WRITE, {"allow": ("mcp__srv__lookup",)}, "AADA"),
    ("user", "lookup", WRITE, {"allow": ("mcp__srv__*",)}, "AADA"),
    ("user", "lookup", WRITE, {"allow": ("mcp__sr",)}, "QQDA"),
    ("user", "lookup", WRITE, {"allow": ("mcp__sr__*",)}, "QQDA"),
    ("user", "lookup", WRITE, {"allow": ("mcp__srv__look",)}, "QQDA"),
    ("user", "lookup", WRITE, {"allow": ("mcp__other",)}, "QQDA"),
    ("user", "lookup", WRITE, {"allow": ("Bash", "Edit", "Read")}, "QQDA"),
    ("project", "lookup", RO, {"allow": ("mcp__srv",)}, "AADA"),
    # a tool name with "__" cannot pose as another tool of a rule
    ("user", "a__b", WRITE, {"allow": ("mcp__srv__a",)}, "QQDA"),
    ("user", "a__b", WRITE, {"allow": ("mcp__srv__a__b",)}, "AADA"),
    # deny and ask rules win, read-only or not, in every mode
    ("user", "lookup", RO, {"deny": ("mcp__srv",)}, "DDDD"),
    ("user", "lookup", RO, {"deny": ("mcp__srv__*",)}, "DDDD"),
    ("user", "lookup", RO, {"deny": ("mcp__srv__lookup",)}, "DDDD"),
    ("user", "lookup", WRITE, {"allow": ("mcp__srv",), "deny": ("mcp__srv__lookup",)}, "DDDD"),
    ("user", "lookup", RO, {"ask": ("mcp__srv",)}, "QQQQ"),
    ("user", "lookup", RO, {"ask": ("mcp__srv__lookup",)}, "QQQQ"),
    ("user", "lookup", RO, {"deny": ("mcp__other",)}, "AAAA"),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def make_tool(scope: str, name: str, annotations: dict[str, Any]) -> McpTool:
    cfg = parse_entry("srv", {"command": "x"}, scope, "test", {})
    conn: Any = SimpleNamespace(cfg=cfg)
    return McpTool(conn, {"name": name, "description": "d", "inputSchema": {"type": "object"},
                          "annotations": annotations}, 30.0)


@pytest.mark.parametrize(("scope", "name", "annotations", "rules", "expected"), ROWS)
def test_decision(root: Path, scope: str, name: str, annotations: dict[str, Any],
                  rules: dict[str, tuple[str, ...]], expected: str) -> None:
    tool = make_tool(scope, name, annotations)
    got = "".join(next(k for k, v in LETTER.items() if v == make_policy(root, mode, **rules).check(tool, {}).behavior)
                  for mode in MODES)
    assert got == expected


@pytest.mark.parametrize("builtin", ["Glob", "Write"])
def test_same_as_builtin(root: Path, builtin: str) -> None:
    """A read-only MCP tool is decided as Glob is, a writing one as a non-file write would be: mode by mode."""
    mcp = make_tool("user", "t", RO if builtin == "Glob" else WRITE)
    for mode in MODES:
        policy = make_policy(root, mode)
        ref = policy.check(load_tool(builtin), {"pattern": "*"} if builtin == "Glob" else {})
        if builtin == "Glob" or mode != "acceptEdits":  # acceptEdits allows file edits, and MCP tools edit no files
            assert policy.check(mcp, {}).behavior == ref.behavior, mode


def test_names_are_safe_for_every_provider() -> None:
    assert tool_name("srv", "get time/zone!") == "mcp__srv__get_time_zone_"
    assert len(tool_name("srv", "x" * 200)) == 64


@pytest.mark.parametrize("bad", ["a__b", "_a", "a_", "a b", "a/b", "x" * 41, "ü"])
def test_server_names_that_could_pose_as_others_are_refused(bad: str) -> None:
    from agentcli.errors import ConfigError

    with pytest.raises(ConfigError):
        parse_entry(bad, {"command": "x"}, "user", "test", {})
