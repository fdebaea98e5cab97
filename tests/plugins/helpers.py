"""A real public marketplace (anthropics/skills, trimmed: tests/plugins/data) laid out in a temp folder, as a
folder or as a local git repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.skills.helpers import place

DATA = Path(__file__).parent / "data"


def marketplace(folder: Path, *, git: bool = False) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True)
    shutil.copy(DATA / "marketplace.json", folder / ".claude-plugin" / "marketplace.json")
    place(folder / "skills")
    if git:
        commit(folder, "init", init=True)
    return folder


def commit(folder: Path, message: str, *, init: bool = False) -> None:
    if init:
        subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(["git", "add", "-A"], cwd=folder, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], cwd=folder,
                   check=True)
