"""Reading sessions: one file, or the active branch of a session across the forks it descends from.

The active branch is found by walking `parent_id` back from the session's last record; a fork's first
record points into its parent session, so a fork reads its parent's file up to the fork point.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.errors import SessionNotFoundError
from agentcli.llm.messages import Message
from agentcli.session import layout
from agentcli.session.records import COMPACTION, MESSAGE, ParsedFile, Problem, Record, parse, paused_gc, to_message

MAX_FORK_DEPTH = 256


def read_file(path: Path) -> ParsedFile:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SessionNotFoundError(f"no session file {path}") from None
    return parse(raw)


@dataclass(slots=True)
class LoadedSession:
    """A session as stored. `chain` is its active branch, oldest first (ancestor sessions included)."""

    session_id: str
    path: Path
    header: Record
    records: list[Record]
    chain: list[Record]
    problems: list[str] = field(default_factory=list)

    @property
    def leaf_id(self) -> str | None:
        return self.chain[-1]["id"] if self.chain else None

    def messages(self) -> list[Message]:
        """The conversation to continue: from the last compaction on the branch (its stored history, then the
        messages after it), so a compacted session loads with no model call and never re-reads what the
        compaction replaced."""
        start, history = boundary(self.chain)
        return history + [m for m in (to_message(r) for r in self.chain[start:]) if m is not None]

    def find(self, record_id: str) -> Record | None:
        """A record of the active branch or of this file, by id or unique id prefix."""
        for pool in (self.chain, self.records):
            hits = [r for r in pool if str(r.get("id", "")).startswith(record_id)]
            exact = [r for r in hits if r.get("id") == record_id]
            if exact or len(hits) == 1:
                return (exact or hits)[0]
        return None


def load(directory: Path, session_id: str) -> LoadedSession:
    """Load a session and its active branch. Raises SessionNotFoundError when there is no such file."""
    with paused_gc():
        return _load(directory, session_id)


def _load(directory: Path, session_id: str) -> LoadedSession:
    path = layout.session_file(directory, session_id)
    parsed = read_file(path)
    problems = [f"{path.name}: {p}" for p in parsed.problems]
    files = [parsed]
    header = parsed.header
    seen = {session_id}
    while header.get("parent_session") and len(files) < MAX_FORK_DEPTH:
        parent = str(header["parent_session"])
        if parent in seen:
            problems.append(f"fork cycle at {parent}")
            break
        seen.add(parent)
        try:
            pf = read_file(layout.session_file(directory, parent))
        except SessionNotFoundError:
            problems.append(f"parent session {parent} is missing; history before the fork is lost")
            break
        problems.extend(f"{parent}{layout.SUFFIX}: {p}" for p in pf.problems if p.kind == "corrupt")
        files.append(pf)
        header = pf.header
    leaf = parsed.records[-1]["id"] if parsed.records else parsed.header.get("fork_record")
    chain = _walk(files, leaf, problems)
    return LoadedSession(session_id, path, parsed.header, parsed.records, chain, problems)


_BOUNDARY = b'\n{"type":"' + COMPACTION.encode() + b'"'


def load_from_boundary(directory: Path, session_id: str) -> LoadedSession | None:
    """Load a compacted session reading only its header and the lines from its last compaction on: the
    history before a compaction is never needed to continue. None when that is not enough (no compaction in
    the file, or the active branch does not pass through the last one: a rewind to before it); then `load`."""
    path = layout.session_file(directory, session_id)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SessionNotFoundError(f"no session file {path}") from None
    at = raw.rfind(_BOUNDARY)
    if at < 0:
        return None
    with paused_gc():
        head = parse(raw[: raw.find(b"\n") + 1])
        tail = parse(raw[at + 1 :])
        if not head.header or not tail.records or tail.records[0].get("type") != COMPACTION:
            return None
        first = tail.records[0]
        walked: list[str] = []
        chain = _walk([ParsedFile(head.header, tail.records, tail.problems)], tail.records[-1]["id"], walked)
        # The only parent allowed to be missing is the compaction's own (it lies before the boundary): any
        # other means the branch leaves the tail (a rewind to before it), which only a whole read can follow.
        expected = f"record {first['id']} points at missing record {first.get('parent_id')}"
        if not chain or chain[0] is not first or walked not in ([], [expected]) or boundary(chain[:1])[0] != 1:
            return None
    problems = [f"{path.name}: {p}" for p in tail.problems if p.kind == "torn"]
    return LoadedSession(session_id, path, head.header, tail.records, chain, problems)


def _walk(files: list[ParsedFile], leaf: object, problems: list[str]) -> list[Record]:
    """Follow parent ids back from `leaf`. A parent lost to a corrupt line falls back to the record
    written just before, so one bad line never hides the history behind it."""
    where: dict[object, tuple[int, int]] = {}

    def find(rid: object) -> tuple[int, int] | None:
        if not where:  # built only when the chain is not simply the previous line
            for fi, pf in enumerate(files):
                for ri, rec in enumerate(pf.records):
                    where.setdefault(rec.get("id"), (fi, ri))
        return where.get(rid)

    chain: list[Record] = []
    seen: set[object] = set()
    cur = (0, len(files[0].records) - 1) if files[0].records and files[0].records[-1].get("id") == leaf else find(leaf)
    while cur is not None:
        fi, ri = cur
        rec = files[fi].records[ri]
        rid = rec.get("id")
        if rid in seen:
            problems.append("parent cycle in records")
            break
        seen.add(rid)
        chain.append(rec)
        parent = rec.get("parent_id")
        if parent is None:
            break
        if ri > 0 and files[fi].records[ri - 1].get("id") == parent:
            cur = (fi, ri - 1)
            continue
        cur = find(parent)
        if cur is None:
            problems.append(f"record {rid} points at missing record {parent}")
            cur = (fi, ri - 1) if ri > 0 else None
    chain.reverse()
    return chain


def boundary(chain: list[Record]) -> tuple[int, list[Message]]:
    """(index after the last valid compaction record of `chain`, the history it holds); (0, []) if none."""
    for i in range(len(chain) - 1, -1, -1):
        rec = chain[i]
        if rec.get("type") != COMPACTION:
            continue
        data = rec.get("data")
        stored = data.get("messages") if isinstance(data, dict) else None
        if not isinstance(stored, list):
            continue
        try:
            return i + 1, [Message.from_dict(d) for d in stored]
        except (KeyError, ValueError, TypeError, AttributeError):
            continue  # a damaged compaction record: an earlier boundary (or the whole branch) still loads
    return 0, []


def iter_replay(directory: Path, session_id: str) -> Iterator[Record]:
    """The stored records of a session's active branch, oldest first, for a front end to replay."""
    yield from load(directory, session_id).chain


def message_records(chain: list[Record]) -> Iterator[tuple[Record, Message]]:
    for rec in chain:
        if rec.get("type") == MESSAGE:
            msg = to_message(rec)
            if msg is not None:
                yield rec, msg


__all__ = ["LoadedSession", "Problem", "iter_replay", "load", "message_records", "read_file"]
