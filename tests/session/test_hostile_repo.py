"""A hostile repository (and a hostile environment) against checkpoints and rewind: its `.git/config`, its
`.gitattributes` and GIT_* variables name programs; none of them may run, and a rewind never writes or
deletes outside the project. Real git, real files."""

from __future__ import annotations

import io
import json
import os
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from agentcli.commands.sessions import main
from agentcli.errors import SessionError
from agentcli.session import layout
from agentcli.session.checkpoint import Snapshot
from agentcli.session.reader import load
from agentcli.session.rewind import apply_rewind, plan_rewind
from agentcli.session.store import open_session, shadow_for
from tests.session.conftest import git_init
from tests.session.helpers import bash_turn


def _trap(tmp_path: Path) -> tuple[Path, Path]:
    """A program that leaves a mark when run (and passes its input through, as a filter would)."""
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n")
    script.chmod(0o755)
    return script, marker


def _arm(project: Path, script: Path, home: Path) -> None:
    git_init(project)
    hooks = project / "hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\n{script}\n")
        (hooks / hook).chmod(0o755)
    included = project / "included.cfg"
    included.write_text(f"[core]\n\tfsmonitor = {script}\n[diff]\n\texternal = {script}\n")
    with open(project / ".git" / "config", "a") as f:
        f.write(f"[core]\n\tfsmonitor = {script}\n\thooksPath = {hooks}\n\tsshCommand = {script}\n"
                f"\tpager = {script}\n\tuntrackedCache = false\n"
                f"[filter \"evil\"]\n\tclean = {script}\n\tsmudge = {script}\n\tprocess = {script}\n"
                f"[diff \"evil\"]\n\ttextconv = {script}\n\tcommand = {script}\n"
                f"[diff]\n\texternal = {script}\n[include]\n\tpath = {included}\n")
    (project / ".gitattributes").write_text("* filter=evil diff=evil merge=evil ident working-tree-encoding=UTF-16\n")
    # The user's own global config defines drivers the repository's attributes name: still never run.
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(f"[filter \"evil\"]\n\tclean = {script}\n\tsmudge = {script}\n"
                                     f"[diff \"evil\"]\n\ttextconv = {script}\n\tcommand = {script}\n")


def test_a_hostile_repository_and_environment_run_nothing_through_checkpoints_or_rewind(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script, marker = _trap(tmp_path)
    user_home = tmp_path / "userhome"
    _arm(project, script, user_home)
    (project / "a.txt").write_text("one\n")
    for name in ("--output=x", "-rf"):  # files named like git options
        (project / name).write_text(f"{name} kept\n")
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    evil_cfg = tmp_path / "env.cfg"
    evil_cfg.write_text(f"[core]\n\tfsmonitor = {script}\n")
    for k, v in {"GIT_DIR": str(project / ".git"), "GIT_WORK_TREE": str(tmp_path), "GIT_EXTERNAL_DIFF": str(script),
                 "GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{script}'", "GIT_CONFIG_GLOBAL": str(evil_cfg),
                 "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": str(tmp_path),
                 "GIT_INDEX_FILE": str(tmp_path / "idx"), "GIT_OBJECT_DIRECTORY": str(tmp_path / "objs"),
                 "GIT_PAGER": str(script), "GIT_SSH_COMMAND": str(script)}.items():
        monkeypatch.setenv(k, v)
    index_before = (project / ".git" / "index").read_bytes()
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "edit", "echo two > a.txt && echo new > b.txt && rm -- ./--output=x ./-rf")
    s.close()
    first = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["-C", str(project), "rewind", s.session_id, "--to", first, "--files", "--yes"]) == 0
    assert "-two" in out.getvalue() and "+one" in out.getvalue()  # the diff itself, no textconv in it
    assert (project / "a.txt").read_text() == "one\n" and not (project / "b.txt").exists()
    assert (project / "--output=x").read_text() == "--output=x kept\n" and (project / "-rf").exists()
    assert not (project / "x").exists()
    assert not marker.exists(), marker.read_text()
    assert not (tmp_path / "idx").exists() and not (tmp_path / "objs").exists()
    assert (project / ".git" / "index").read_bytes() == index_before  # the user's repository untouched


def test_a_directory_swapped_for_a_link_after_the_plan_is_not_followed(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "made.txt").write_text("the user's own file, outside the project\n")
    (outside / "kept.txt").write_text("also outside\n")
    (project / "sub").mkdir()
    (project / "sub" / "kept.txt").write_text("v1\n")
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "edit", "echo v2 > sub/kept.txt && echo new > sub/made.txt")
    d = layout.sessions_dir(project)
    s.writer.flush()
    loaded = load(d, s.session_id)
    plan = plan_rewind(loaded, loaded.chain[0]["id"], s.writer.shadow)
    assert {(c.status, c.path) for c in plan.changes} == {("M", "sub/kept.txt"), ("D", "sub/made.txt")}
    # While the user reads the diff, the directory becomes a link to somewhere else.
    (project / "sub" / "kept.txt").unlink()
    (project / "sub" / "made.txt").unlink()
    (project / "sub").rmdir()
    (project / "sub").symlink_to(outside)
    with pytest.raises(SessionError, match=r"will not rewind 'sub/kept\.txt'"):
        apply_rewind(s.writer, loaded, plan, files=True, conversation=False)
    s.close()
    assert (outside / "made.txt").read_text() == "the user's own file, outside the project\n"
    assert (outside / "kept.txt").read_text() == "also outside\n"


def test_a_header_naming_another_directory_cannot_rewind_its_files(project: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("not part of any session\n")
    (project / "a.txt").write_text("one\n")
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "edit", "echo two > a.txt")
    s.close()
    path = layout.session_file(layout.sessions_dir(project), s.session_id)
    lines = path.read_text().splitlines(keepends=True)
    lines[0] = lines[0].replace(json.dumps(str(project))[1:-1], json.dumps(str(victim))[1:-1])
    assert str(victim) in lines[0]
    path.write_text("".join(lines))
    first = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        status = main(["-C", str(project), "rewind", s.session_id, "--to", first, "--files", "--yes"])
    assert status == 1 and "names another project" in err.getvalue()
    assert sorted(p.name for p in victim.iterdir()) == ["precious.txt"]
    assert (project / "a.txt").read_text() == "two\n"


@pytest.mark.parametrize("with_secrets", [False, True], ids=["plain", "with-secrets"])
def test_a_file_replaced_by_a_fifo_is_left_out_and_blocks_nothing(
        project: Path, tmp_path: Path, with_secrets: bool) -> None:
    (project / "a.txt").write_text("a\n")
    (project / "b.txt").write_text("b\n")
    secrets = ("sk-test-secret-value",) if with_secrets else ()
    shadow = shadow_for(layout.sessions_dir(project), layout.new_session_id(), project, secrets)
    shadow.snapshot()
    (project / "a.txt").unlink()
    os.mkfifo(project / "a.txt")  # what `mkfifo a.txt` by a tool does: git cannot store it, a read would block
    (project / "b.txt").write_text("b2\n")
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(shadow.snapshot()), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # unblock the read before failing, so the thread ends
        os.close(os.open(project / "a.txt", os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
    assert done, "the snapshot hung on the FIFO"
    snap = done[0]
    assert isinstance(snap, Snapshot) and snap.skipped == ("a.txt",)
    assert shadow._git("cat-file", "-p", f"{snap.tree}:b.txt") == b"b2\n"


def test_a_project_sharing_another_s_sessions_directory_cannot_rewind_its_files(tmp_path: Path) -> None:
    mine, other = tmp_path / "my proj", tmp_path / "my-proj"  # one slug for both: one sessions directory
    for root in (mine, other):
        root.mkdir()
        (root / "a.txt").write_text(f"{root.name} one\n")
    assert layout.sessions_dir(mine) == layout.sessions_dir(other)
    s = open_session(mine)
    assert s.writer is not None
    bash_turn(s.writer, mine, "edit", "echo two > a.txt")
    s.close()
    first = load(layout.sessions_dir(mine), s.session_id).chain[0]["id"]
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        status = main(["-C", str(other), "rewind", s.session_id, "--to", first, "--files", "--yes"])
    assert status == 1 and "names another project" in err.getvalue()
    assert (mine / "a.txt").read_text() == "two\n" and (other / "a.txt").read_text() == "my-proj one\n"
    with redirect_stdout(io.StringIO()):
        assert main(["-C", str(mine), "rewind", s.session_id, "--to", first, "--files", "--yes"]) == 0
    assert (mine / "a.txt").read_text() == "my proj one\n"
