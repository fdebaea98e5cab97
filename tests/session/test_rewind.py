from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from agentcli.commands.sessions import main
from agentcli.session import layout
from agentcli.session.reader import load
from agentcli.session.rewind import apply_rewind, plan_rewind
from agentcli.session.store import open_session, shadow_for
from tests.session.conftest import git_init, tree_bytes
from tests.session.helpers import bash_turn


def _populate(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "a.txt").write_bytes(b"alpha\r\nno newline at end")
    (root / "sub" / "tool.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (root / "sub" / "tool.sh").chmod(0o755)
    (root / "blob.bin").write_bytes(bytes(range(256)) * 10)
    (root / ".gitignore").write_text("*.log\n")
    (root / "keep.log").write_text("ignored\n")


@pytest.mark.parametrize("git_repo", [True, False], ids=["git-repo", "plain-dir"])
def test_rewind_files_after_bash_delete_and_create_is_byte_for_byte(project: Path, git_repo: bool) -> None:
    _populate(project)
    if git_repo:
        git_init(project)
    before = tree_bytes(project)
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "shuffle", "rm a.txt sub/tool.sh && mkdir -p new/deep && echo made > new/deep/c.txt"
              " && chmod -x blob.bin && echo more >> keep.log")
    s.close()
    assert not (project / "a.txt").exists() and (project / "new/deep/c.txt").exists()
    first_prompt = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    status = main(["-C", str(project), "rewind", s.session_id, "--to", first_prompt, "--files", "--yes"])
    assert status == 0
    after = tree_bytes(project)
    after.pop("keep.log")
    expect = dict(before)
    expect.pop("keep.log")
    assert after == expect
    assert not (project / "new").exists()  # emptied directories go too
    assert (project / "keep.log").read_text() == "ignored\nmore\n"  # ignored files are not touched


def test_plan_shows_diff_and_warns_about_outside_changes(project: Path) -> None:
    _populate(project)
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "edit", "echo changed > a.txt", n=1)
    (project / "blob.bin").write_bytes(b"edited by the user\n")  # after the turn: not the agent
    bash_turn(s.writer, project, "again", "echo x > other.txt", n=2)
    (project / "sub" / "tool.sh").write_text("user edit after the last turn\n")
    s.close()
    d = layout.sessions_dir(project)
    loaded = load(d, s.session_id)
    plan = plan_rewind(loaded, loaded.chain[0]["id"], shadow_for(d, s.session_id, project))
    assert {(c.status, c.path) for c in plan.changes} == {
        ("M", "a.txt"), ("M", "blob.bin"), ("D", "other.txt"), ("M", "sub/tool.sh")}
    assert plan.outside == ["blob.bin", "sub/tool.sh"]
    assert "-changed" in plan.patch and "+alpha" in plan.patch
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["-C", str(project), "rewind", s.session_id, "--to", plan.target_id, "--dry-run"]) == 0
    text = out.getvalue()
    assert "warning: changed outside the agent" in text and "delete other.txt" in text
    assert (project / "other.txt").exists()  # dry run changed nothing


def test_rewind_conversation_moves_the_branch_back(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "one", "echo 1 > f1", n=1)
    bash_turn(s.writer, project, "two", "echo 2 > f2", n=2)
    d = layout.sessions_dir(project)
    loaded = load(d, s.session_id)
    first_answer = next(r for r in loaded.chain if r.get("message", {}).get("content") == [
        {"type": "text", "text": "done 1"}])
    plan = plan_rewind(loaded, first_answer["id"], s.writer.shadow)
    history = apply_rewind(s.writer, loaded, plan, files=True, conversation=True)
    assert [m.text for m in history][-1] == "done 1"
    assert (project / "f1").exists() and not (project / "f2").exists()
    s.close()
    again = open_session(project, resume=s.session_id, no_persistence=True)
    assert again.history == history
    # The abandoned records are still in the file.
    assert "two" in layout.session_file(d, s.session_id).read_text()


def test_checkpoint_skips_big_and_secret_files_and_respects_gitignore(project: Path) -> None:
    from agentcli.session.checkpoint import ShadowGit

    (project / "big.dat").write_bytes(b"0" * 2000)
    (project / ".env").write_text("KEY=secret\n")
    (project / "ok.txt").write_text("ok\n")
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("obj\n")
    d = layout.sessions_dir(project)
    g = ShadowGit(layout.shadow_store(d), project, layout.checkpoint_index(d, "x"), max_file_bytes=1000)
    snap = g.snapshot()
    assert snap.skipped == ("big.dat",)
    listed = g._git("ls-tree", "-r", "--name-only", snap.tree).decode().split()
    assert listed == [".gitignore", "ok.txt"]
    os.remove(project / "ok.txt")
    assert g.snapshot().tree != snap.tree


def test_store_inside_the_project_is_not_snapshotted(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCLI_HOME", str(project / "state" / "home"))
    (project / "a.txt").write_text("a\n")
    s = open_session(project)
    assert s.writer is not None and s.writer.shadow is not None
    rec = s.writer.snapshot_now("before_tool")
    assert rec is not None
    rec2 = s.writer.snapshot_now("before_tool")  # the first one wrote objects and records under the project
    s.close()
    assert rec["data"]["tree"] == rec2["data"]["tree"]
    names = s.writer.shadow._git("ls-tree", "-r", "--name-only", rec["data"]["tree"]).decode().split()
    assert names == ["a.txt"]


def test_rewind_never_removes_agentclis_private_gitignore(project: Path) -> None:
    """Issue 28: an approval "for this project" made between turns writes `.agentcli/settings.local.toml` and
    the `.gitignore` beside it that keeps it out of git. A rewind to before then listed the `.gitignore` as
    "changed outside the agent" and deleted it: the private settings then showed in `git status`."""
    import subprocess

    from agentcli.settings.writer import keep_local_out_of_git

    (project / "a.txt").write_text("one\n")
    git_init(project)
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "edit", "echo two > a.txt", n=1)
    local = project / ".agentcli" / "settings.local.toml"
    local.parent.mkdir(exist_ok=True)
    local.write_text('[permissions]\nallow = ["Bash(make *)"]\n')
    keep_local_out_of_git(local)
    bash_turn(s.writer, project, "again", "echo three > a.txt", n=2)
    s.close()
    d = layout.sessions_dir(project)
    loaded = load(d, s.session_id)
    plan = plan_rewind(loaded, loaded.chain[0]["id"], shadow_for(d, s.session_id, project))
    assert all(not c.path.startswith(".agentcli/") for c in plan.changes), plan.changes
    assert main(["-C", str(project), "rewind", s.session_id, "--to", plan.target_id, "--files", "--yes"]) == 0
    assert (project / "a.txt").read_text() == "one\n"
    assert (project / ".agentcli" / ".gitignore").read_text() == "settings.local.toml\n"
    assert local.exists()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=project,
                            capture_output=True, text=True, check=True).stdout
    assert "settings.local.toml" not in status
