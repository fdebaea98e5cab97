"""A new session file in two steps (agentcli.atomicfile.NewFile): whole at its path, or not there at all."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from agentcli.atomicfile import NewFile
from agentcli.commands.sessions import main
from agentcli.errors import SessionLockedError, SessionNotFoundError
from agentcli.llm.messages import Message
from agentcli.session import layout
from agentcli.session.lock import SessionLock
from agentcli.session.records import encode
from agentcli.session.store import new_header, open_session


def test_nothing_is_visible_until_published_then_all_of_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    new = NewFile(path, b'{"type":"session"}\n')
    os.write(new.fd, b'{"type":"message"}\n')  # appended before publishing: the same file
    assert not path.exists()
    new.publish()
    os.close(new.fd)
    assert path.read_bytes() == b'{"type":"session"}\n{"type":"message"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temp file left


def test_a_taken_name_fails_and_leaves_the_other_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("someone else's\n")
    new = NewFile(path, b"mine\n")
    with pytest.raises(FileExistsError):
        new.publish()
    os.close(new.fd)
    assert path.read_text() == "someone else's\n" and [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]


def test_a_new_session_is_at_its_path_once_a_turn_has_ended(project: Path) -> None:
    s = open_session(project)
    w = s.writer
    assert w is not None
    w.message(Message.user("go"))
    w.end_turn()
    lines = w.path.read_text().splitlines()
    assert len(lines) == 2 and '"type":"session"' in lines[0]
    s.close()


def _starting(project: Path) -> tuple[str, NewFile, SessionLock]:
    """A session as another process holds it between its start and the publication of its file: locked,
    its header written aside, nothing at its path yet (store.create with a generated id)."""
    d = layout.sessions_dir(project.resolve())
    d.mkdir(parents=True, exist_ok=True)
    sid = layout.new_session_id()
    lock = SessionLock(layout.lock_file(d, sid), sid).acquire()
    header = new_header(sid, project.resolve(), project, "m1", "anthropic", None)
    return sid, NewFile(layout.session_file(d, sid), encode(header)), lock


def _cli(project: Path, *argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["-C", str(project), *argv])
    return status, out.getvalue() + err.getvalue()


def test_a_session_whose_file_is_not_published_yet_is_reported_as_starting(project: Path) -> None:
    sid, new, lock = _starting(project)
    try:
        for argv in (["show", sid], ["fork", sid], ["rename", sid, "x"], ["export", sid]):
            status, out = _cli(project, *argv)
            assert status == 1 and "[session_locked]" in out and "no record yet" in out, (argv, out)
        assert _cli(project, "list", "--all") == (0, "no sessions in this project\n")
        for fork in (False, True):
            with pytest.raises(SessionLockedError, match="no record yet"):
                open_session(project, resume=sid, fork_session=fork)
        new.publish()  # its first turn is under way: the header is at its path
        status, out = _cli(project, "show", sid)
        assert status == 0 and sid in out
        with pytest.raises(SessionLockedError, match="in use by process"):
            open_session(project, resume=sid)
        forked = open_session(project, resume=sid, fork_session=True)  # a fork of nothing yet: empty, working
        assert forked.history == [] and forked.writer is not None
        forked.writer.message(Message.user("hi"))
        forked.close()
        status, out = _cli(project, "fork", sid)
        assert status == 0
    finally:
        os.close(new.fd)
        lock.release()


def test_continue_skips_a_session_that_has_no_record_yet(project: Path) -> None:
    done = open_session(project)
    assert done.writer is not None
    done.writer.message(Message.user("the real work"))
    done.close()
    fresh = open_session(project)  # another terminal's REPL, opened, no prompt yet
    assert fresh.writer is not None
    fresh.writer.flush()  # its header is at its path (published in the background)
    try:
        again = open_session(project, continue_=True)
        assert again.session_id == done.session_id
        assert [m.text for m in again.history] == ["the real work"]
        again.close()
    finally:
        fresh.close_or_discard()
    with pytest.raises(SessionNotFoundError):  # nothing but sessions without a record: nothing to continue
        d = layout.sessions_dir(project.resolve())
        layout.session_file(d, done.session_id).write_bytes(
            layout.session_file(d, done.session_id).read_bytes().split(b"\n")[0] + b"\n")
        open_session(project, continue_=True)
