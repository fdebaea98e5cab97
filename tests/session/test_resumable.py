"""Reading a session to continue it without opening it for writing (agentcli.session.resumable): what the REPL
checks before its prompt, and reads once the prompt is up."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.errors import SessionLockedError, SessionNotFoundError, UsageError
from agentcli.session import layout
from agentcli.session.lock import SessionLock
from agentcli.session.reader import read_file
from agentcli.session.resumable import check_unlocked, continued_id, read_resumable, resolve_session
from agentcli.session.store import open_session
from tests.session.helpers import text_turn


def test_continued_id_keeps_the_stored_one_unless_forked_or_unsaved() -> None:
    sid = layout.new_session_id()
    assert continued_id(sid, fork=False, no_persistence=False, session_id=None) == sid
    assert continued_id(sid, fork=False, no_persistence=False, session_id=sid) == sid
    forked = continued_id(sid, fork=True, no_persistence=False, session_id=None)
    assert forked != sid and layout.is_session_id(forked)
    chosen = layout.new_session_id()
    assert continued_id(sid, fork=False, no_persistence=True, session_id=chosen) == chosen
    with pytest.raises(UsageError, match="needs --fork-session"):
        continued_id(sid, fork=False, no_persistence=False, session_id=chosen)


def test_reads_from_the_last_compaction_and_writes_nothing(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    text_turn(s.writer, "before the compaction", "old answer")
    s.writer.record("compaction", {"trigger": "manual", "reason": "manual", "phases": ["summarise"],
                                   "messages": [{"role": "user", "content": [{"type": "text", "text": "summary"}]},
                                                {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]})
    text_turn(s.writer, "after it", "new answer")
    s.close()
    path = layout.session_file(layout.sessions_dir(project), s.session_id)
    size = path.stat().st_size
    stored = read_resumable(layout.sessions_dir(project), None)  # None: the most recent session
    assert stored.session_id == s.session_id and not stored.notices
    assert [m.text for m in stored.messages] == ["summary", "ok", "after it", "new answer"]
    assert stored.chain[0]["type"] == "compaction"  # the lines before it were never parsed
    assert path.stat().st_size == size and not read_file(path).problems


def test_check_unlocked_names_the_holder(project: Path) -> None:
    s = open_session(project)
    directory = layout.sessions_dir(project)
    with pytest.raises(SessionLockedError, match="in use by process"):
        check_unlocked(directory, s.session_id)  # the writer holds it
    s.close()
    check_unlocked(directory, s.session_id)
    SessionLock(layout.lock_file(directory, s.session_id), s.session_id).acquire().release()  # (the probe took none)
    with pytest.raises(SessionNotFoundError):
        resolve_session(directory, "no-such-session")
