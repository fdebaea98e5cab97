from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.ptyterm import Term


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own AGENTCLI_HOME and no colour preference from the outside."""
    home = tmp_path / "agentcli-home"
    home.mkdir()
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small git project for the pty tests (modules that need more define their own)."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def terms() -> Iterator[list[Term]]:
    """Terminals a test starts; closed when it ends."""
    started: list[Term] = []
    yield started
    for t in started:
        t.close()
