"""Placing the vendored public skills (tests/skills/data, from anthropics/skills) where agentcli looks."""

from __future__ import annotations

import shutil
from pathlib import Path

DATA = Path(__file__).parent / "data"
VENDORED = ("brand-guidelines", "internal-comms", "webapp-testing")


def place(folder: Path, *names: str) -> Path:
    """Copies the vendored skills `names` (all by default) into `folder`; returns `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names or VENDORED:
        shutil.copytree(DATA / name, folder / name)
    return folder


def write_skill(folder: Path, name: str, description: str, body: str = "Do it.", extra: str = "") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}\n")
    return path
