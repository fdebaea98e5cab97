"""Slash commands and actions reach the session only through `ReplHost`: they never import the REPL module or
touch a private attribute of the session they are given (mypy checks the rest: `Repl` implements the protocol)."""

from __future__ import annotations

import ast
from pathlib import Path

import agentcli

UI = Path(agentcli.__file__).parent / "ui"
COMMAND_MODULES = ("slash.py", "actions.py", "rewind.py")


def test_commands_use_only_the_host_protocol() -> None:
    broken = []
    for name in COMMAND_MODULES:
        tree = ast.parse((UI / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "agentcli.ui.repl":
                broken.append(f"{name}:{node.lineno} imports agentcli.ui.repl")
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "repl"
                    and node.attr.startswith("_")):
                broken.append(f"{name}:{node.lineno} uses repl.{node.attr}")
    assert broken == []
