"""A snapshot of an unchanged tree reuses the last tree id instead of running `git write-tree` again (one git
process less per turn that changed nothing), and never when the index did change."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentcli.session import layout
from agentcli.session.checkpoint import ShadowGit


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that records its subcommand, then runs the real git."""
    real = next(p for d in os.environ["PATH"].split(os.pathsep) if os.access(p := os.path.join(d, "git"), os.X_OK))
    log = tmp_path / "git.log"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "git"
    shim.write_text(f"#!/bin/sh\nfor a; do case $a in -*) ;; *) echo \"$a\" >> {log}; break;; esac; done\n"
                    f'exec {real} "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return log


def _write_trees(log: Path) -> int:
    return log.read_text().split().count("write-tree") if log.exists() else 0


def _shadow(project: Path) -> ShadowGit:
    d = layout.sessions_dir(project)
    return ShadowGit(layout.shadow_store(d), project, layout.checkpoint_index(d, "s"))


def test_unchanged_tree_reuses_the_tree_id_and_a_change_never_does(project: Path, git_log: Path) -> None:
    (project / "a.txt").write_text("one\n")
    g = _shadow(project)
    first = g.snapshot().tree
    assert _write_trees(git_log) == 1
    assert g.snapshot().tree == first  # nothing changed: no git write-tree
    assert _write_trees(git_log) == 1
    (project / "a.txt").write_text("two\n")  # same size: the index keeps its size, its checksum changes
    second = g.snapshot().tree
    assert second != first and _write_trees(git_log) == 2
    assert g._git("ls-tree", "-r", "--name-only", second).decode().split() == ["a.txt"]
    assert g._git("cat-file", "-p", f"{second}:a.txt") == b"two\n"
    os.remove(project / "a.txt")
    assert g.snapshot().tree != second
    (project / "a.txt").write_text("one\n")
    assert g.snapshot().tree == first  # the same content is the same tree, whichever way it came back
    assert _write_trees(git_log) == 4


def test_a_new_shadow_on_the_same_index_writes_the_tree_again(project: Path, git_log: Path) -> None:
    (project / "a.txt").write_text("one\n")
    tree = _shadow(project).snapshot().tree
    assert _shadow(project).snapshot().tree == tree
    assert _write_trees(git_log) == 2  # the memo lives in one ShadowGit: another process starts without it


def test_an_index_without_its_checksum_is_never_taken_as_unchanged(project: Path, git_log: Path) -> None:
    """`index.skipHash` (a user's git config may set it) writes zeros where the checksum goes."""
    (project / "a.txt").write_text("one\n")
    g = _shadow(project)
    tree = g.snapshot().tree
    with open(g.index, "r+b") as f:  # what such an index looks like
        f.seek(-20, os.SEEK_END)
        f.write(bytes(20))
    assert g.snapshot().tree == tree
    assert _write_trees(git_log) == 2
