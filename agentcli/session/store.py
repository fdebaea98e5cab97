"""Opening sessions: new, continued, resumed, forked — the one entry point the runtime calls.

    opened = open_session(project_root, model="claude-sonnet-4-5", provider="anthropic",
                          continue_=False, resume=None, fork_session=False, session_id=None,
                          no_persistence=False, name=None, secrets=(api_key,))
    agent = Agent(..., sink=opened.sink, history=opened.history)   # then show opened.notices
    ...
    opened.close()

`resume` is a session id, a unique id prefix or a session name; `continue_` picks the project's most recent
session. With `fork_session` the history continues in a new session whose header points at the old one.
The checkpoint store starts warming in the background as soon as a writer opens (ShadowGit.warm).
Raises `SessionNotFoundError` (unknown id/name, nothing to continue), `SessionLockedError` (another live
process writes that session; `--fork-session` is offered) and `UsageError` (a `session_id` already taken).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli import paths
from agentcli.atomicfile import NewFile, atomic_write
from agentcli.core.sink import NullSink, SessionSink
from agentcli.errors import SessionNotFoundError, UsageError
from agentcli.llm.messages import Message
from agentcli.record import record
from agentcli.redact import Redactor
from agentcli.session import layout
from agentcli.session.lock import SessionLock
from agentcli.session.records import HEADER, REPAIR, RESUMED, SCHEMA_VERSION, Record, encode, now_iso
from agentcli.session.writer import SessionWriter, ShadowLater
from agentcli.version import __version__

if TYPE_CHECKING:  # the reader and resumable are imported by what resumes, forks or lists: a new session needs neither
    from agentcli.session.checkpoint import ShadowGit
    from agentcli.session.reader import LoadedSession
    from agentcli.session.repair import Repaired


@record(frozen=False)
class OpenedSession:
    """What the runtime needs: where to write, what to continue from, what to tell the user."""

    session_id: str
    sink: SessionSink
    history: list[Message] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    replay: list[Record] = field(default_factory=list)  # stored records of the branch, for the renderer
    resumed_from: str | None = None
    writer: SessionWriter | None = None
    fresh: bool = False  # a new session (not resumed or forked)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def close_or_discard(self) -> None:
        """Close; a new session that got no message (the REPL was opened and left without a prompt) is
        removed, so it does not pile up in `sessions list`, the picker and `-c`."""
        self.close()
        if self.writer is None or not self.fresh or self.writer.messages_written:
            return
        for path in (self.writer.path, self.writer.path.with_suffix(".lock"), self.writer.path.with_suffix(".index")):
            with contextlib.suppress(OSError):
                path.unlink()


def open_session(
    project_root: Path,
    *,
    cwd: Path | None = None,
    model: str = "",
    provider: str = "",
    base_url: str | None = None,
    continue_: bool = False,
    resume: str | None = None,
    fork_session: bool = False,
    session_id: str | None = None,
    no_persistence: bool = False,
    name: str | None = None,
    secrets: tuple[str, ...] = (),
    checkpoints: bool = True,
    resume_at: str | None = None,
    provider_label: str | None = None,
) -> OpenedSession:
    """Open (or create) the session a run writes to; see the module docstring. `resume_at` (a record id of
    the resumed branch): continue from that message, leaving the later ones off the branch. `provider_label`:
    what the run names its provider when that is not `provider` (the reconnect key): "llamacpp" for a
    llama.cpp server reached as `openai` with a base URL; listings and exports show it."""
    root = project_root.resolve()
    directory = layout.sessions_dir(root)
    if session_id is not None and not layout.is_session_id(session_id):
        raise UsageError(f"--session-id must be a UUID, got {session_id!r}")
    if not (continue_ or resume):
        sid = session_id or layout.new_session_id()
        if no_persistence:
            return OpenedSession(sid, NullSink(sid))
        _check_free(directory, sid)
        header = new_header(sid, root, cwd or Path.cwd(), model, provider, name, base_url)
        header["provider_label"] = provider_label
        writer = create(directory, header, Redactor(secrets), _shadow(directory, sid, root, checkpoints, secrets),
                        generated_id=session_id is None)
        writer.warm_checkpoints()
        return OpenedSession(sid, writer, writer=writer, fresh=True)
    from agentcli.session.resumable import continued_id, resolve_session

    old_id = resolve_session(directory, resume)
    sid = continued_id(old_id, fork=fork_session, no_persistence=no_persistence, session_id=session_id)
    # Continued in place: locked before it is read, so that no other run's last records can land between
    # the read and our first append (ours would then point past them, leaving them off the branch).
    lock = None if fork_session or no_persistence else SessionLock(layout.lock_file(directory, sid), sid).acquire()
    try:
        loaded, fixed, notices = _read(directory, old_id, resume_at)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    if no_persistence:
        return OpenedSession(sid, NullSink(sid), fixed.messages, notices, loaded.chain, old_id)
    if lock is None:
        _check_free(directory, sid)
        header = fork_header(sid, loaded, root, cwd or Path.cwd(), model, provider, name, loaded.leaf_id)
        header["base_url"] = base_url
        header["provider_label"] = provider_label
        writer = create(directory, header, Redactor(secrets), _shadow(directory, sid, root, checkpoints, secrets))
    else:
        writer = SessionWriter(loaded.path, sid, redactor=Redactor(secrets), leaf_id=loaded.leaf_id, lock=lock,
                               shadow=_shadow(directory, sid, root, checkpoints, secrets))
        writer.record(RESUMED, {"model": model, "provider": provider, "provider_label": provider_label,
                                "base_url": base_url,
                                "cwd": str(cwd or Path.cwd())})
        if name:
            writer.record("rename", {"name": name})
    if fixed.tail is not None:
        writer.message(fixed.tail, synthetic=True)
    if fixed.notes:
        writer.record(REPAIR, {"notes": fixed.notes})
    writer.warm_checkpoints()
    return OpenedSession(sid, writer, fixed.messages, notices, loaded.chain, old_id, writer)


def _read(directory: Path, session_id: str, resume_at: str | None) -> tuple[LoadedSession, Repaired, list[str]]:
    """A stored session as it continues (the branch up to `resume_at`, with --resume-session-at), repaired,
    and the notices about it."""
    from agentcli.session.resumable import read_resumable, sidechains

    if resume_at is None:
        stored = read_resumable(directory, session_id)
        return stored.loaded, stored.repaired, stored.notices
    from agentcli.session.reader import load
    from agentcli.session.records import paused_gc
    from agentcli.session.repair import repair

    with paused_gc():
        loaded = cut_at(load(directory, session_id), resume_at)
        fixed = repair(loaded.messages())
        side_problems = [p for side in sidechains(directory, session_id) for p in side.problems]
    return loaded, fixed, [*loaded.problems, *fixed.notes, *side_problems]


def cut_at(loaded: LoadedSession, record_id: str) -> LoadedSession:
    """The session's branch up to and including record `record_id` (an id or unique prefix on the branch)."""
    hits = [i for i, r in enumerate(loaded.chain) if str(r.get("id", "")) == record_id]
    if not hits and len(record_id) >= 4:
        hits = [i for i, r in enumerate(loaded.chain) if str(r.get("id", "")).startswith(record_id)]
    if len(hits) != 1:
        raise SessionNotFoundError(f"no message {record_id!r} in session {loaded.session_id}",
                                   hint=f"see `agentcli sessions show {loaded.session_id}`")
    return replace(loaded, chain=loaded.chain[: hits[0] + 1])


def open_sidechain(
    project_root: Path, parent_id: str, tool_use_id: str, agent: str, *, cwd: Path, model: str, provider: str,
    secrets: tuple[str, ...] = (),
) -> SessionWriter:
    """A new file for one subagent's transcript: `<sessions>/<parent id>/subagents/<id>.jsonl`, its header
    naming the parent session and the Task call (`sidechain_of`). Kept apart from the session files, so
    listings, the picker and `--continue` never take it for a session of its own."""
    from agentcli.session.resumable import sidechain_dir

    root = project_root.resolve()
    directory = sidechain_dir(layout.sessions_dir(root), parent_id)
    sid = layout.new_session_id()
    header = new_header(sid, root, cwd, model, provider, None)
    header["sidechain_of"] = {"session": parent_id, "tool_use_id": tool_use_id, "agent": agent}
    return create(directory, header, Redactor(secrets), None)


def fork(directory: Path, source_id: str, at: str | None = None, *, name: str | None = None,
         session_id: str | None = None, secrets: tuple[str, ...] = ()) -> str:
    """Create a fork of `source_id` branching at record `at` (default: its last record); return its id.
    Nothing is copied: reading the fork follows its header into the parent file."""
    from agentcli.session.reader import load

    loaded = load(directory, source_id)
    point = loaded.leaf_id
    if at is not None:
        rec = loaded.find(at)
        if rec is None:
            raise SessionNotFoundError(f"no record {at!r} in session {source_id}",
                                       hint=f"see `agentcli sessions show {source_id}`")
        point = str(rec["id"])
    sid = session_id or layout.new_session_id()
    _check_free(directory, sid)
    root = Path(str(loaded.header.get("project_root") or loaded.header.get("cwd") or "."))
    header = fork_header(sid, loaded, root, Path(str(loaded.header.get("cwd") or root)),
                         str(loaded.header.get("model", "")), str(loaded.header.get("provider", "")), name, point)
    create(directory, header, Redactor(secrets), None).close()
    return sid


def new_header(sid: str, root: Path, cwd: Path, model: str, provider: str, name: str | None,
               base_url: str | None = None) -> Record:
    return {"type": HEADER, "schema_version": SCHEMA_VERSION, "id": sid, "parent_id": None, "ts": now_iso(),
            "created": now_iso(), "cwd": str(cwd), "project_root": str(root), "git_branch": layout.git_branch(root),
            "model": model, "provider": provider, "base_url": base_url, "name": name, "title": name,
            "parent_session": None, "fork_record": None, "agentcli_version": __version__}


def fork_header(sid: str, parent: LoadedSession, root: Path, cwd: Path, model: str, provider: str,
                name: str | None, point: str | None) -> Record:
    header = new_header(sid, root, cwd, model or str(parent.header.get("model", "")),
                        provider or str(parent.header.get("provider", "")), name, parent.header.get("base_url"))
    header.update(parent_session=parent.session_id, fork_record=point, fork_turns=_prompts_to(parent, point))
    return header


def _prompts_to(parent: LoadedSession, point: str | None) -> int:
    """The prompts a fork carries from its parent (up to and including `point`): listings count a fork's
    turns as the conversation it holds, not only what was said after it was made."""
    n = 0
    for rec in parent.chain:
        msg = rec.get("message") if rec.get("type") == "message" else None
        blocks = msg.get("content") if isinstance(msg, dict) and msg.get("role") == "user" else None
        if isinstance(blocks, list) and any(isinstance(b, dict) and b.get("type") == "text" and b.get("text")
                                            for b in blocks):
            n += 1
        if point is not None and rec.get("id") == point:
            break
    return n


def create(directory: Path, header: Record, redactor: Redactor, shadow: ShadowGit | ShadowLater | None,
           generated_id: bool = False) -> SessionWriter:
    """Write a new session file's header and return a locked writer for it. Whole or absent: a process killed
    here leaves no header-less file that would not load. With a `generated_id` (random: no other process can
    take it), the file's fsyncs and its appearance under its name run beside the run's start-up, in the
    writer's background thread (atomicfile.NewFile); with an id the user chose, here, so that a clash is
    reported before the run begins."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    sid = str(header["id"])
    path = layout.session_file(directory, sid)
    lock = SessionLock(layout.lock_file(directory, sid), sid).acquire()
    data = encode(redactor.obj(header))
    new_file = None
    try:
        if generated_id:
            new_file = NewFile(path, data, new_mode=0o600)
        else:
            atomic_write(path, data, new_mode=0o600, exclusive=True)
    except OSError:
        lock.release()
        raise
    leaf = header.get("fork_record")
    return SessionWriter(path, sid, redactor=redactor, leaf_id=str(leaf) if leaf else None, lock=lock,
                         shadow=shadow, new_file=new_file)


def shadow_for(directory: Path, session_id: str, project_root: Path, secrets: tuple[str, ...] = ()) -> ShadowGit:
    """The checkpoint store of a session (shared object store per project, one index per session).
    Files holding one of `secrets` are left out of its snapshots."""
    from agentcli.session.checkpoint import ShadowGit

    excludes: tuple[str, ...] = ()
    home = paths.home().resolve()
    if home.is_relative_to(project_root):
        excludes = (f"/{home.relative_to(project_root).as_posix()}/",)
    return ShadowGit(layout.shadow_store(directory), project_root, layout.checkpoint_index(directory, session_id),
                     extra_excludes=excludes, secrets=tuple(s.encode() for s in secrets if len(s) >= 6),
                     capture_budget=_capture_budget())


def _capture_budget() -> int:
    """The undo's budget for untracked files (`AGENTCLI_CAPTURE_MB`, MiB; 0 turns the capture off)."""
    from agentcli.session.checkpoint import CAPTURE_BUDGET

    raw = os.environ.get("AGENTCLI_CAPTURE_MB", "").strip()
    return int(raw) * 2**20 if raw.isdigit() else CAPTURE_BUDGET


def _shadow(directory: Path, sid: str, root: Path, enabled: bool, secrets: tuple[str, ...]) -> ShadowLater | None:
    """The session's checkpoint store, made when the session first needs it (agentcli.session.writer)."""
    # A home directory or / as the "project" would mean snapshotting everything: no checkpoints there.
    if not enabled or shutil.which("git") is None or root in (Path.home().resolve(), Path("/")):
        return None
    return ShadowLater(layout.shadow_store(directory), layout.checkpoint_index(directory, sid),
                       lambda: shadow_for(directory, sid, root, secrets))


def _check_free(directory: Path, sid: str) -> None:
    if layout.session_file(directory, sid).exists():
        raise UsageError(f"session id {sid} is already taken", hint="resume it with --resume instead")
