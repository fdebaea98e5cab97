"""The house plan's walls, checked on every import statement of the package (lazy imports inside functions
included): which rooms may not import which."""

from __future__ import annotations

import ast
from pathlib import Path

import agentcli

PACKAGE = Path(agentcli.__file__).parent

# room → rooms it must never import
WALLS = {
    "core": {"providers", "ui", "output", "commands", "assembly"},
    "providers": {"core", "tools", "session", "ui", "output", "commands", "assembly"},
    "llm": {"core", "providers", "tools", "session", "ui", "output", "net", "commands", "assembly"},
    "tools": {"providers", "ui", "output", "session", "commands", "assembly"},
    "session": {"ui", "output", "commands", "assembly"},
}


def _imported_rooms(path: Path) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "agentcli" and len(parts) > 1:
                found.add((parts[1], node.lineno))
    return found


def test_rooms_keep_their_walls() -> None:
    broken = []
    for room, forbidden in WALLS.items():
        for path in sorted((PACKAGE / room).rglob("*.py")):
            for other, line in _imported_rooms(path):
                if other in forbidden:
                    broken.append(f"{path.relative_to(PACKAGE)}:{line} imports agentcli.{other}")
    assert broken == []
