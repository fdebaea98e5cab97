"""Reading a stored session to continue it, without opening it for writing: which session a reference
names, and its transcript from the last compaction on, repaired.

`open_session` builds on this to continue a session; the REPL uses it alone to draw a resumed session before
its agent (provider, tools, session writer) exists. Nothing here writes, locks or imports the writer, and what
the REPL needs before its prompt (which session, is it free) imports neither the reader nor the messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.errors import SessionLockedError, SessionNotFoundError, UsageError
from agentcli.session import layout
from agentcli.session.lock import SessionLock, is_locked

if TYPE_CHECKING:
    from agentcli.llm.messages import Message
    from agentcli.session.reader import LoadedSession
    from agentcli.session.records import Record
    from agentcli.session.repair import Repaired


@dataclass(slots=True)
class Resumable:
    """A stored session as it will continue: `repaired.messages` is the history the agent gets."""

    session_id: str
    loaded: LoadedSession
    repaired: Repaired
    notices: list[str] = field(default_factory=list)  # what was wrong with the file and what repair did

    @property
    def messages(self) -> list[Message]:
        return self.repaired.messages

    @property
    def chain(self) -> list[Record]:
        """The stored records of the active branch (from the last compaction on, when it has one)."""
        return self.loaded.chain


def read_resumable(directory: Path, ref: str | None) -> Resumable:
    """The session `ref` names (None: the most recent one), read from its last compaction boundary on (the
    whole branch when that is not enough) and repaired. Raises SessionNotFoundError."""
    from agentcli.session.reader import load, load_from_boundary
    from agentcli.session.records import paused_gc
    from agentcli.session.repair import repair

    sid = resolve_session(directory, ref)
    with paused_gc():
        loaded = load_from_boundary(directory, sid) or load(directory, sid)
        fixed = repair(loaded.messages())
        side_problems = [p for side in sidechains(directory, sid) for p in side.problems]
    return Resumable(sid, loaded, fixed, [*loaded.problems, *fixed.notes, *side_problems])


def continued_id(stored_id: str, *, fork: bool, no_persistence: bool, session_id: str | None) -> str:
    """The id a continued session writes under: the stored one, or (a fork, an unsaved run) `session_id` or a
    new one. Raises UsageError for a `session_id` that would rename the stored session."""
    if fork or no_persistence:
        return session_id or layout.new_session_id()
    if session_id is not None and session_id != stored_id:
        raise UsageError("--session-id with --resume/--continue needs --fork-session")
    return stored_id


def check_unlocked(directory: Path, session_id: str) -> None:
    """Raise SessionLockedError (naming the holder) when a live process writes the session now; a probe
    only: the lock is taken by whoever opens the session for writing."""
    path = layout.lock_file(directory, session_id)
    if is_locked(path):
        SessionLock(path, session_id).acquire().release()  # raises, with the holder's pid, unless just freed


def resolve_session(directory: Path, ref: str | None) -> str:
    """A session id from an id, a unique id prefix or a name; None means the most recent session."""
    if not ref:
        latest = _latest(directory)
        if latest is None:
            raise SessionNotFoundError("no session to continue in this project",
                                       hint="start one without -c/--continue")
        return latest
    if layout.is_safe_id(ref) and layout.session_file(directory, ref).exists():
        return ref
    if layout.is_safe_id(ref) and is_locked(layout.lock_file(directory, ref)):
        # Its process started it, its file appears when its first records are written (store.create).
        raise SessionLockedError(f"session {ref} is starting in process {_holder(directory, ref)}: it has no "
                                 "record yet", hint="try again once its first turn has ended")
    from agentcli.session.index import list_sessions
    from agentcli.session.reader import read_file

    summaries = list_sessions(directory)
    named = [s for s in summaries if s.name == ref]
    if named:
        return named[0].id
    prefixed = [s.id for s in summaries if s.id.startswith(ref)] if len(ref) >= 4 else []
    if len(prefixed) == 1:
        return prefixed[0]
    more = f" ({len(prefixed)} sessions start with it)" if prefixed else ""
    hint = "see `agentcli sessions list`"
    elsewhere = []
    if layout.is_session_id(ref):
        elsewhere = [p.parent for p in layout.projects_root().glob(f"*/{ref}{layout.SUFFIX}")]
    if elsewhere:
        root = read_file(layout.session_file(elsewhere[0], ref)).header.get("project_root", elsewhere[0].name)
        hint = f"it belongs to the project at {root}: run agentcli from there"
    raise SessionNotFoundError(f"no session {ref!r} in this project{more}", hint=hint)


def sidechain_dir(directory: Path, session_id: str) -> Path:
    return directory / layout.checked_id(session_id) / "subagents"


def sidechains(directory: Path, session_id: str) -> list[LoadedSession]:
    """Every subagent transcript of a session, loaded (a torn last line is reported, not fatal), oldest first."""
    from agentcli.session.reader import load

    found: list[LoadedSession] = []
    sub = sidechain_dir(directory, session_id)
    try:
        files = sorted(layout.session_ids(sub), key=lambda f: f[1].stat().st_mtime_ns)
    except OSError:
        return []
    for side_id, _ in files:
        found.append(load(sub, side_id))
    return found


def _latest(directory: Path) -> str | None:
    """The most recently written session that has a record: one with only its header (another terminal's
    session, opened with no prompt yet) has nothing to continue."""
    found: list[tuple[int, str]] = []
    for sid, e in layout.session_ids(directory):
        try:
            found.append((e.stat().st_mtime_ns, sid))
        except FileNotFoundError:
            continue
    for _, sid in sorted(found, reverse=True):
        if _has_records(layout.session_file(directory, sid)):
            return sid
    return None


def _has_records(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
            end = head.find(b"\n")
            return end >= 0 and (head[end + 1 :].strip() != b"" or f.read(1) != b"")
    except OSError:
        return False


def _holder(directory: Path, session_id: str) -> str:
    try:
        return layout.lock_file(directory, session_id).read_text().strip() or "?"
    except OSError:
        return "?"
