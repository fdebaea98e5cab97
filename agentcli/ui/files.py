"""The files `@` mentions can name: what git does not ignore (`git ls-files -co --exclude-standard`, run only as
agentcli.proc.gitsafe allows), or a bounded walk; matched fuzzily."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

MAX_FILES = 50_000
_SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", "dist"}


def list_files(cwd: Path) -> list[str]:
    """Paths relative to `cwd` (directories end in `/`), git-aware when `cwd` is in a work tree."""
    files = _git_files(cwd)
    if files is None:
        files = _walk(cwd)
    dirs: set[str] = set()
    for f in files:
        parent = os.path.dirname(f)
        while parent and parent + "/" not in dirs:
            dirs.add(parent + "/")
            parent = os.path.dirname(parent)
    return sorted(dirs) + sorted(files)


def _git_files(cwd: Path) -> list[str] | None:
    from agentcli.proc.gitsafe import git_argv, git_env

    argv = git_argv(cwd, "ls-files", "-co", "--exclude-standard", "-z")  # None: the repository names a program
    if argv is None:
        return None
    try:
        proc = subprocess.run(argv, cwd=cwd, env=git_env(), capture_output=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    names = [n for n in proc.stdout.decode("utf-8", "replace").split("\0") if n]
    return [n for n in names[:MAX_FILES] if (cwd / n).exists()]


def _walk(cwd: Path) -> list[str]:
    out: list[str] = []
    for root, dirs, names in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        rel = os.path.relpath(root, cwd)
        for n in names:
            out.append(n if rel == "." else f"{rel}/{n}")
            if len(out) >= MAX_FILES:
                return out
    return out


def fuzzy_match(query: str, candidates: list[str], limit: int = 50) -> list[str]:
    """Candidates holding `query`'s characters in order; substring and file-name hits first, then shorter."""
    if not query:
        return [c for c in candidates if "/" not in c.rstrip("/")][:limit]
    q = query.lower()
    scored: list[tuple[tuple[int, int, int], str]] = []
    for c in candidates:
        low = c.lower()
        pos = low.find(q)
        if pos >= 0:
            base = low.rstrip("/").rsplit("/", 1)[-1]
            scored.append(((0 if q in base else 1, pos, len(c)), c))
        elif _subsequence(q, low):
            scored.append(((2, 0, len(c)), c))
    scored.sort()
    return [c for _, c in scored[:limit]]


def _subsequence(q: str, text: str) -> bool:
    it = iter(text)
    return all(ch in it for ch in q)
