from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    monkeypatch.setenv("AGENTCLI_HOME", str(h))
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


def git_init(root: Path) -> None:
    """A real git repository with one commit."""
    run = ["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run([*run, "add", "-A"], check=True)
    subprocess.run([*run, "commit", "-q", "-m", "init", "--allow-empty"], check=True)


def tree_bytes(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under root (outside .git) with its bytes and mode."""
    out: dict[str, tuple[bytes, int]] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/") or not p.is_file():
            continue
        out[rel] = (p.read_bytes(), p.stat().st_mode & 0o777)
    return out
