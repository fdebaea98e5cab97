"""The one place that writes session files: `SessionWriter`, the loop's `SessionSink`.

Every append is one complete line written by a single `os.write` on an `O_APPEND` descriptor, so a crash
leaves at most one torn last line and two writers can never interleave inside a line. `end_turn()` starts an
fsync of what the turn wrote in a background thread (it releases the GIL: the disk flush overlaps the next
request instead of delaying it); the next `end_turn()` reports its error if it has one, `close()` waits for it and
fsyncs the rest.
Secrets are redacted before anything is encoded.

Checkpoints stay off the event loop: `before_tool` snapshots run in a worker thread; the `turn_end` snapshot
starts in a background thread at `end_turn()`, its record's id and place reserved there, so it still follows the
turn's last record and precedes the next one, as if taken synchronously. Records appended while it runs point at
it and wait in memory, in order, behind it; that thread writes them, right after the checkpoint's record, as soon
as the snapshot is done (the fsync of the next `end_turn()`, queued behind it, covers them). Nothing on the loop
thread waits for git: with a real model the snapshot ends long before the next reply; with a fast one, the
reply's records and the next `end_turn()` do not wait for it either. The next checkpoint and `settle()` (the
loop's, before a run's result) await it; `flush()` and `close()` wait for it.
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import errno
import functools
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentcli.atomicfile import NewFile
from agentcli.errors import SessionError
from agentcli.llm.messages import Message
from agentcli.redact import Redactor
from agentcli.session.layout import checkpoints_primed
from agentcli.session.lock import SessionLock
from agentcli.session.records import (
    CHECKPOINT,
    RESERVED,
    Record,
    data_record,
    encode,
    message_record,
    new_record_id,
    now_iso,
)

T = TypeVar("T")


if TYPE_CHECKING:
    from agentcli.session.checkpoint import ShadowGit


class ShadowLater:
    """A session's checkpoint store not made yet: agentcli.session.checkpoint is imported when the session first
    needs it (a checkpoint, a rewind, a warm-up), so a run that changes no file in a project whose checkpoint
    index is warm never imports it (issue 25, speed). `make` makes it; `store` and `index` are its paths."""

    def __init__(self, store: Path, index: Path, make: Callable[[], ShadowGit]) -> None:
        self.store = store
        self.index = index
        self.make = make


class SessionWriter:
    """Appends records to one session file. `leaf_id` is the record the next one will point at."""

    def __init__(
        self,
        path: Path,
        session_id: str,
        *,
        redactor: Redactor,
        leaf_id: str | None = None,
        lock: SessionLock | None = None,
        shadow: ShadowGit | ShadowLater | None = None,
        new_file: NewFile | None = None,
    ) -> None:
        """`new_file`: a session file being created (its header written, not yet visible at `path`): it is
        published by the background thread, before anything else that thread does; errors surface at the
        next turn's end or close."""
        self.session_id = session_id
        self.path = path
        self._leaf_id = leaf_id
        self._turn_end: _TurnEnd | None = None  # the turn-end checkpoint being taken, once written: not yet settled
        self._io = threading.Lock()  # the file and `_turn_end`'s queue: the background thread writes them too
        # Written since the last fsync was queued (close skips a second fsync after end_turn's). Only the loop
        # thread sets it: what the background thread writes always precedes a fsync queued behind it.
        self._unsynced = True
        self._syncing: list[Future[None]] = []  # end_turns' fsyncs, running beside the next requests
        # The turn-end snapshot, then the turn's fsync: one thread, in that order (the snapshot is waited for
        # first, by the next checkpoint; the fsync only by the next turn's end or close).
        self._background = _Worker()
        self.redactor = redactor
        self._shadow = shadow if not isinstance(shadow, ShadowLater) else None
        self._later = shadow if isinstance(shadow, ShadowLater) else None
        self._problems: list[str] = []  # failed snapshots not yet reported (take_problems)
        self._lock = lock
        self._published: Future[None] | None = None
        if new_file is not None:
            self._fd: int | None = new_file.fd
            self._published = self._background.submit(new_file.publish)
        else:
            self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        self._ckpt_lock = asyncio.Lock()
        self._dirty_tree = False
        self._calls_pending = False  # this turn's reply called tools: another request follows it
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}  # the latest reply's calls by id (undo capture)
        self.messages_written = 0
        if new_file is None:
            self._terminate_torn_line()

    @property
    def leaf_id(self) -> str | None:
        """The id the next record will point at (a pending turn-end checkpoint's, reserved at `end_turn`)."""
        return self._leaf_id

    @leaf_id.setter
    def leaf_id(self, value: str | None) -> None:
        self._settle()
        self._leaf_id = value

    @property
    def shadow(self) -> ShadowGit | None:
        """The session's checkpoint store (None: checkpoints are off), made when first asked for."""
        if self._later is not None:
            self._shadow, self._later = self._later.make(), None
        return self._shadow

    def warm_checkpoints(self) -> None:
        """Start filling the checkpoint index in the background (see ShadowGit.warm)."""
        if self._later is not None and checkpoints_primed(self._later.store, self._later.index):
            return  # warm() would return at once: the store is not even made yet
        if self.shadow is not None:
            self.shadow.warm()

    # ---- SessionSink ------------------------------------------------------------------------------

    def message(self, message: Message, **meta: Any) -> str:
        self.messages_written += 1
        if message.role == "assistant" and message.tool_uses:
            self._calls_pending = True
            self._calls = {u.id: (u.name, u.input) for u in message.tool_uses}
        return self.append(message_record(message, self.leaf_id, meta))

    def record(self, kind: str, data: dict[str, Any]) -> str:
        if kind in RESERVED:
            raise ValueError(f"record kind {kind!r} is reserved")
        return self.append(data_record(kind, data, self.leaf_id))

    async def checkpoint(self, tool_use_id: str, tool_name: str) -> None:
        if self.shadow is None:
            return
        async with self._ckpt_lock:
            if self._turn_end is not None:
                await asyncio.wrap_future(self._turn_end.job)
                self._settle()
            reach = self._reach(tool_use_id)
            if reach:
                data = await asyncio.to_thread(self._capture, tool_use_id, tool_name, reach)
            else:
                data = await asyncio.to_thread(self._snap, "before_tool", tool_use_id, tool_name)
            self._append_checkpoint(data)

    def _reach(self, tool_use_id: str) -> list[str]:
        """What this call may delete or overwrite that git does not track: the files a shell command reaches
        (agentcli.session.destructive), the file an edit replaces (an ignored one is in no plain snapshot)."""
        name, args = self._calls.get(tool_use_id, ("", {}))
        if self.shadow is None or self.shadow.capture_budget <= 0:
            return []
        root = os.path.realpath(self.shadow.work_tree)
        target = args.get("file_path") or args.get("notebook_path")
        if name != "Bash" and isinstance(target, str) and os.path.isabs(target):
            real = os.path.realpath(target)
            inside = real.startswith(root.rstrip("/") + "/")
            return [os.path.relpath(real, root)] if inside and os.path.isfile(real) else []
        command = args.get("command")
        if name != "Bash" or not isinstance(command, str):
            return []
        from agentcli.session.destructive import reach

        found = reach(command, root, root)
        # Relative to the shell's directory, which may be below the root: the same names at any depth too.
        return [q for p in found for q in ((p,) if p == "." else (p, f"*/{p}", f"*/{p}/*"))]

    def _capture(self, tool_use_id: str, tool_name: str, pathspecs: list[str]) -> dict[str, Any]:
        """A before-tool checkpoint that keeps the untracked and ignored files the command can reach."""
        assert self.shadow is not None
        data: dict[str, Any] = {"phase": "before_tool", "tool_use_id": tool_use_id, "tool_name": tool_name}
        from agentcli.session.checkpoint import CheckpointError  # (imported with the store, already)

        try:
            cap = self.shadow.capture(pathspecs, self.shadow.capture_budget)
        except CheckpointError as err:
            data["error"] = err.message
            return data
        except OSError as err:
            data["error"] = f"cannot snapshot the files: {err}"
            return data
        data.update(tree=cap.snapshot.tree, hashed=cap.snapshot.hashed, captured=cap.files,
                    captured_bytes=cap.kept, capture_ms=round(cap.seconds * 1000))
        if cap.too_large:
            data["too_large"] = list(cap.too_large[:50])
            with self._io:
                self._problems.append(
                    f"{len(cap.too_large)} untracked file(s) this command may delete are too large to keep for "
                    f"/rewind (budget {self.shadow.capture_budget // 2**20} MiB; AGENTCLI_CAPTURE_MB sets it): "
                    + ", ".join(cap.too_large[:5]))
        return data

    async def settle(self) -> None:
        pending = self._turn_end
        if pending is not None:
            await asyncio.wrap_future(pending.job)
            if self._turn_end is pending:
                self._settle()

    def take_problems(self) -> list[str]:
        with self._io:
            problems, self._problems = self._problems, []
        return problems

    def end_turn(self) -> None:
        self._wait_published()  # a new file is at its path once a turn has ended (long done by then)
        if self._turn_end is not None and self._turn_end.job.done():
            self._settle()  # its error, if any, surfaces now
        if self._dirty_tree and self.shadow is not None and self._fd is not None:
            # The state after the agent's tools ran: later differences were made by someone else. The agent
            # runs no tool before its next checkpoint, which waits for this snapshot.
            self._settle()  # the previous one is done: the checkpoint that made the tree dirty waited for it
            self._dirty_tree = False
            pending = _TurnEnd(new_record_id(), self._leaf_id, now_iso())
            self._leaf_id = pending.rid
            pending.job = self._background.submit(functools.partial(self._turn_end_job, pending))
            self._turn_end = pending  # (after the submit: a job that could not start is never waited for)
            self._unsynced = True  # its record: the fsync below, queued behind the job, covers it
        elif self._calls_pending and self.shadow is not None:
            # Only read-only tools ran, and the model is asked again: bring the checkpoint index up to date
            # meanwhile, so that a changing tool in a later reply waits for one `ls-files`, not for hashing
            # what changed since the project's last session (ShadowGit.warm; once per session).
            self.shadow.warm(refresh=True)
        self._calls_pending = False
        while self._syncing and self._syncing[0].done():
            self._check_io(self._syncing.pop(0))  # an I/O error of an earlier turn's fsync surfaces here
        if self._fd is not None and self._unsynced:
            self._unsynced = False
            self._syncing.append(self._background.submit(functools.partial(_fsync, self._fd)))

    # ---- the rest ---------------------------------------------------------------------------------

    def append(self, record: Record) -> str:
        """Write one record (redacted) as one line; it becomes the new leaf. Returns its id. While a turn-end
        snapshot runs, the line waits in memory behind that checkpoint's record (see the module docstring)."""
        if self._fd is None:
            raise SessionError(f"session {self.session_id} is closed")
        line = encode(self.redactor.obj(record))
        with self._io:
            pending = self._turn_end
            if pending is not None and not pending.written:
                pending.queued.append(line)  # the next end_turn's fsync runs after the job writes it
            else:
                self._write(line)
            self._unsynced = True
        self._leaf_id = str(record["id"])
        return self._leaf_id

    def _wait_sync(self) -> None:
        """Wait for end_turns' fsyncs still running (an I/O error surfaces here)."""
        self._wait_published()
        pending, self._syncing = self._syncing, []
        for fut in pending:
            self._check_io(fut)

    def _wait_published(self) -> None:
        pending, self._published = self._published, None
        if pending is None:
            return
        try:
            pending.result()
        except OSError as err:
            raise SessionError(f"cannot create the session file {self.path}: {err}",
                               hint="is the disk full or the sessions folder read-only?") from err

    def _sync(self) -> None:
        self._wait_sync()
        if self._fd is not None and self._unsynced:
            self._unsynced = False
            done: Future[None] = Future()
            try:
                _fsync(self._fd)
                done.set_result(None)
            except OSError as err:
                done.set_exception(err)
            self._check_io(done)

    def _check_io(self, job: Future[None]) -> None:
        """The result of a background write or fsync: its OSError (a full disk) as a SessionError."""
        try:
            job.result()
        except OSError as err:
            raise SessionError(f"cannot write the session file {self.path}: {err.strerror or err}",
                               hint="is the disk full?") from err

    def _write(self, line: bytes) -> None:
        assert self._fd is not None
        try:
            written = os.write(self._fd, line)
        except OSError as err:
            raise SessionError(f"cannot write the session file {self.path}: {err.strerror or err}",
                               hint="is the disk full?") from err
        if written != len(line):
            raise SessionError(f"short write to {self.path} ({written} of {len(line)} bytes)",
                               hint="is the disk full?")

    def flush(self) -> None:
        """Write everything appended so far, waiting for a running turn-end snapshot (and for a new file to be
        published): for readers of the file during the session (a rewind)."""
        self._settle()
        self._wait_published()

    def snapshot_now(self, phase: str) -> Record | None:
        """Take a checkpoint immediately (sync) and record it; None when checkpoints are off or fail."""
        if self.shadow is None:
            return None
        return self._append_checkpoint(self._snap(phase, None, None))

    def close(self) -> None:
        try:
            if self._fd is not None:
                self._settle()
        finally:
            if self._shadow is not None:  # (one never made runs nothing)
                self._shadow.stop()  # a warm-up still running must not delay exit
            if self._fd is not None:
                try:
                    self._sync()
                finally:
                    fd, self._fd = self._fd, None
                    os.close(fd)
            self._remember_index()
            self._background.stop()
            if self._lock is not None:
                self._lock.release()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _remember_index(self) -> None:
        """Seed the project's next session with this index (done per turn too: a killed run never closes)."""
        if self._later is not None and not self._later.index.exists():
            return  # as ShadowGit.remember_index does without an index, and the store is not made for it
        if self.shadow is not None:
            with contextlib.suppress(OSError):
                self.shadow.remember_index()

    def _settle(self) -> None:
        """Wait until the pending turn-end checkpoint is written (its snapshot taken, its record and the records
        queued behind it written by the background thread); an error writing them surfaces here."""
        pending, self._turn_end = self._turn_end, None
        if pending is not None:
            self._check_io(pending.job)

    def _turn_end_job(self, pending: _TurnEnd) -> None:
        """Runs in the background thread: snapshot, write the checkpoint in its reserved place and the records
        queued behind it, then seed the project's next session with the index."""
        seed = True
        try:
            data = self._snap("turn_end", None, None)
        except Exception as err:  # reported in the record, like any failed checkpoint
            data, seed = {"phase": "turn_end", "error": f"{type(err).__name__}: {err}"}, False
        rec = {"type": CHECKPOINT, "id": pending.rid, "parent_id": pending.parent, "ts": pending.ts, "data": data}
        with self._io:
            pending.written = True  # from now on, appends go straight to the file
            if "error" in data:
                self._problems.append(f"checkpoint skipped: {data['error']}")
            if self._fd is None:  # closed without waiting (cannot happen: close() settles first)
                return
            self._write(encode(self.redactor.obj(rec)))
            for line in pending.queued:
                self._write(line)
            pending.queued.clear()
        if seed:
            self._remember_index()

    def _snap(self, phase: str, tool_use_id: str | None, tool_name: str | None) -> dict[str, Any]:
        """Snapshot the tree (may run in a worker thread: it only runs git, never writes the file)."""
        assert self.shadow is not None
        data: dict[str, Any] = {"phase": phase}
        if tool_use_id is not None:
            data.update(tool_use_id=tool_use_id, tool_name=tool_name)
        from agentcli.session.checkpoint import CheckpointError  # (imported with the store, already)

        try:
            snap = self.shadow.snapshot()
        except CheckpointError as err:
            data["error"] = err.message
        except OSError as err:
            data["error"] = f"cannot snapshot the files: {err}"
        else:
            data.update(tree=snap.tree, hashed=snap.hashed)
            if snap.skipped:
                data["skipped"] = list(snap.skipped)
        return data

    def _append_checkpoint(self, data: dict[str, Any]) -> Record:
        self._settle()  # a pending turn-end record comes first, and this one points at it
        if "error" in data:
            with self._io:
                self._problems.append(f"checkpoint skipped: {data['error']}")
        rec = data_record(CHECKPOINT, data, self._leaf_id)
        self.append(rec)
        if data["phase"] == "before_tool":
            self._dirty_tree = True
        return rec

    def _terminate_torn_line(self) -> None:
        """A crash can leave a last line without its newline; end it so our first record stays whole."""
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        if size and os.pread(self._fd, 1, size - 1) != b"\n":
            os.write(self._fd, b"\n")


def _fsync(fd: int) -> None:
    """fsync, where there is something to sync: EINVAL means a file that cannot be (a device, some special
    file systems), not a failed write."""
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno != errno.EINVAL:
            raise


class _TurnEnd:
    """A turn-end checkpoint being taken: the id, parent and time reserved for its record, the lines appended
    since (written after it), and the background job that takes the snapshot and writes them."""

    __slots__ = ("job", "parent", "queued", "rid", "ts", "written")

    def __init__(self, rid: str, parent: str | None, ts: str) -> None:
        self.rid, self.parent, self.ts = rid, parent, ts
        self.queued: list[bytes] = []
        self.written = False
        self.job: Future[None]


class _Worker:
    """One thread, started at its first job, running jobs in order. Started with `_thread`, not
    `threading.Thread.start()`, which blocks the caller until the new thread has been scheduled (milliseconds on
    a busy machine, on the run's critical path). Like a daemon thread, an interpreter exiting without `close()`
    does not wait for it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = queue.SimpleQueue()
        self._started = False
        self._stopped = False

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Queue `fn`; RuntimeError once stopped (a closed writer has nothing left to run: a job then would
        start a second thread and write to a closed descriptor)."""
        if self._stopped:
            raise RuntimeError("the session writer's background thread is stopped")
        fut: Future[T] = Future()
        self._jobs.put((fn, fut))
        if not self._started:
            self._started = True
            _thread.start_new_thread(self._run, ())
        return fut

    def stop(self) -> None:
        """The thread ends after the jobs already submitted (a writer's close: no thread left per session)."""
        self._stopped = True
        if self._started:
            self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, fut = job
            if not fut.set_running_or_notify_cancel():  # cancelled while queued: not run
                continue
            try:
                fut.set_result(fn())
            except BaseException as err:  # handed to whoever waits for the result
                fut.set_exception(err)
