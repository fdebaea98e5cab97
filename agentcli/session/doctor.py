"""`sessions doctor`: check every session of a project and repair what can be repaired.

Repairs: bad lines are moved out to `<id>.jsonl.bad` (nothing is thrown away) with an atomic rewrite; tool
calls left without a result get the synthetic "interrupted" result appended; the listing cache is rebuilt.
Sessions in use by a live process are only checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.atomicfile import atomic_write
from agentcli.errors import SessionError, SessionLockedError
from agentcli.llm.messages import Message
from agentcli.redact import Redactor
from agentcli.session import layout
from agentcli.session.index import INDEX_NAME, list_sessions
from agentcli.session.lock import SessionLock, is_locked
from agentcli.session.reader import load
from agentcli.session.records import REPAIR, parse
from agentcli.session.repair import repair
from agentcli.session.writer import SessionWriter


@dataclass(slots=True)
class Finding:
    session_id: str
    problems: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def doctor(directory: Path, *, fix: bool = True) -> list[Finding]:
    out: list[Finding] = []
    for path in sorted(directory.glob(f"*{layout.SUFFIX}")):
        sid = path.name[: -len(layout.SUFFIX)]
        out.append(_check(directory, sid, fix))
    (directory / INDEX_NAME).unlink(missing_ok=True)
    list_sessions(directory)
    return out


def _check(directory: Path, sid: str, fix: bool) -> Finding:
    lock: SessionLock | None = None
    if fix:
        try:
            lock = SessionLock(layout.lock_file(directory, sid), sid).acquire()
        except SessionLockedError:
            lock = None
    try:
        return _examine(directory, sid, lock)
    finally:
        if lock is not None:
            lock.release()


def _examine(directory: Path, sid: str, lock: SessionLock | None) -> Finding:
    """Check one session; repair it only when we hold its lock (nobody else is writing it)."""
    f = Finding(sid)
    path = layout.session_file(directory, sid)
    busy = " (session in use)" if lock is None and is_locked(layout.lock_file(directory, sid)) else ""
    parsed = parse(path.read_bytes())
    bad = [p for p in parsed.problems if p.kind != "field" and p.detail != "no session header"]
    f.problems += [str(p) for p in parsed.problems if p.kind == "field"]  # the header is kept as it is
    if not parsed.header:
        f.problems.append("no valid header on line 1: cannot repair automatically")
    if bad and lock is not None and parsed.header:
        f.fixed.append(f"moved {_move_bad_lines(path)} bad line(s) to {path.name}.bad")
    else:
        f.problems += [f"{p}{busy}" for p in bad]
    try:
        loaded = load(directory, sid)
    except SessionError as err:
        f.problems.append(err.message)
        return f
    f.problems += [p for p in loaded.problems if "missing" in p or "cycle" in p]
    fixed = repair(loaded.messages())
    if fixed.tail is not None and lock is not None:
        _append_tail(path, sid, loaded.leaf_id, fixed.tail, fixed.notes)
        f.fixed.append("answered interrupted tool call(s) with an 'interrupted' result")
    elif fixed.tail is not None:
        f.problems.append(f"tool call(s) without a result{busy}")
    return f


def _move_bad_lines(path: Path) -> int:
    """Keep the good lines, move the bad ones byte for byte to `<file>.bad`: that copy is on disk (fsynced)
    before the file is rewritten without them, so no crash loses a line."""
    good: list[bytes] = []
    bad: list[bytes] = []
    for line in path.read_bytes().split(b"\n"):  # not splitlines(): a bad line's own \r stays in it
        if not line.strip():
            continue
        (good if parse(line + b"\n").records or _is_header(line) else bad).append(line)
    with open(os.open(f"{path}.bad", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as f:  # private
        f.write(b"".join(b + b"\n" for b in bad))
        f.flush()
        os.fsync(f.fileno())
    atomic_write(path, b"".join(g + b"\n" for g in good))
    return len(bad)


def _is_header(line: bytes) -> bool:
    return bool(parse(line + b"\n").header)


def _append_tail(path: Path, sid: str, leaf: str | None, tail: Message, notes: list[str]) -> None:
    with SessionWriter(path, sid, redactor=Redactor(), leaf_id=leaf) as w:
        w.message(tail, synthetic=True)
        w.record(REPAIR, {"notes": notes, "by": "doctor"})
