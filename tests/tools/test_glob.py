from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentcli.tools.base import ToolContext
from agentcli.tools.glob import MAX_RESULTS, GlobTool, split_absolute
from agentcli.tools.listing import find_rg

from .conftest import run

RG = find_rg()


def _tree(root: Path, files: dict[str, int]) -> None:
    """Create files with distinct mtimes (value = age in seconds)."""
    for rel, age in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(rel)
        t = 1_700_000_000 - age
        os.utime(p, (t, t))


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


@pytest.fixture(params=["git", "rg", "walk"])
def variant(request: pytest.FixtureRequest, project: Path) -> GlobTool:
    if request.param == "git":
        _git_init(project)
    return GlobTool(rg_path=RG if request.param == "rg" else None)


def test_newest_first_and_gitignore(variant: GlobTool, project: Path, ctx: ToolContext) -> None:
    (project / ".gitignore").write_text("ignored/\n*.log\n")
    _tree(project, {"old.py": 30, "src/new.py": 1, "src/mid.py": 10, "ignored/x.py": 0, "a.log": 0, "b.txt": 0})
    out = run(variant, {"pattern": "**/*.py"}, ctx)
    assert out.content.splitlines() == [
        str(project / "src/new.py"),
        str(project / "src/mid.py"),
        str(project / "old.py"),
    ]
    out = run(variant, {"pattern": "*.py"}, ctx)
    assert out.content.splitlines() == [str(project / "old.py")]


def test_path_argument_and_no_match(variant: GlobTool, project: Path, ctx: ToolContext) -> None:
    _tree(project, {"src/a.ts": 2, "src/b.tsx": 1, "lib/c.ts": 0})
    out = run(variant, {"pattern": "*.{ts,tsx}", "path": "src"}, ctx)
    assert out.content.splitlines() == [str(project / "src/b.tsx"), str(project / "src/a.ts")]
    none = run(variant, {"pattern": "**/*.rs"}, ctx)
    assert not none.is_error and none.content.startswith("No files found")


def test_truncates_at_100(project: Path, ctx: ToolContext) -> None:
    _tree(project, {f"f{i:03}.txt": i for i in range(130)})
    out = run(GlobTool(rg_path=None), {"pattern": "*.txt"}, ctx)
    lines = out.content.splitlines()
    assert lines[0] == str(project / "f000.txt")
    assert len([ln for ln in lines if ln.startswith("/")]) == MAX_RESULTS
    assert "Showing the 100 most recently modified of 130" in out.content


def test_absolute_pattern_and_escape(project: Path, ctx: ToolContext) -> None:
    _tree(project, {"pkg/m.py": 0})
    out = run(GlobTool(), {"pattern": f"{project}/pkg/*.py"}, ctx)
    assert out.content == str(project / "pkg/m.py")
    assert split_absolute("/a/b/**/*.py") == ("/a/b", "**/*.py")
    out = run(GlobTool(), {"pattern": "*", "path": "/etc"}, ctx)
    assert out.is_error and "outside the project" in out.content
    out = run(GlobTool(), {"pattern": "/etc/*"}, ctx)
    assert out.is_error
    out = run(GlobTool(), {"pattern": "*", "path": "pkg/m.py"}, ctx)
    assert out.is_error and "not a directory" in out.content


def test_git_lists_untracked_and_skips_deleted(project: Path, ctx: ToolContext) -> None:
    _git_init(project)
    _tree(project, {"tracked.py": 1, "gone.py": 1})
    subprocess.run(["git", "-C", str(project), "add", "."], check=True)
    (project / "gone.py").unlink()
    _tree(project, {"untracked.py": 0})
    out = run(GlobTool(), {"pattern": "*.py"}, ctx)
    assert out.content.splitlines() == [str(project / "untracked.py"), str(project / "tracked.py")]
