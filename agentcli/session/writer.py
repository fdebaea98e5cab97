"""The one place that writes session files: `SessionWriter`, the loop's `SessionSink`.

Every append is one complete line written by a single `os.write` on an `O_APPEND` descriptor, so a crash
leaves at most one torn last line and two writers can never interleave inside a line. `end_turn()` fsyncs.
Secrets are redacted before anything is encoded.

Checkpoints stay off the event loop: `before_tool` snapshots run in a worker thread; the `turn_end` snapshot
starts in a background thread at `end_turn()` and its record is written just before the next record (or at
`close()`), so it still follows the turn's last record and precedes the next one, as if taken synchronously
(it is made durable by the next fsync: the next turn's end, or close).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from agentcli.errors import SessionError
from agentcli.llm.messages import Message
from agentcli.redact import Redactor
from agentcli.session.checkpoint import CheckpointError, ShadowGit
from agentcli.session.lock import SessionLock
from agentcli.session.records import (
    CHECKPOINT,
    RESERVED,
    Record,
    data_record,
    encode,
    message_record,
)


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
        shadow: ShadowGit | None = None,
    ) -> None:
        self.session_id = session_id
        self.path = path
        self._leaf_id = leaf_id
        self._turn_end: Future[dict[str, Any]] | None = None
        self.redactor = redactor
        self.shadow = shadow
        self._problems: list[str] = []  # failed snapshots not yet reported (take_problems)
        self._lock = lock
        self._fd: int | None = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        self._ckpt_lock = asyncio.Lock()
        self._dirty_tree = False
        self.messages_written = 0
        self._terminate_torn_line()

    @property
    def leaf_id(self) -> str | None:
        """The id the next record will point at (a pending turn-end checkpoint is written first)."""
        self._settle()
        return self._leaf_id

    @leaf_id.setter
    def leaf_id(self, value: str | None) -> None:
        self._settle()
        self._leaf_id = value

    def warm_checkpoints(self) -> None:
        """Start filling the checkpoint index in the background (see ShadowGit.warm)."""
        if self.shadow is not None:
            self.shadow.warm()

    # ---- SessionSink ------------------------------------------------------------------------------

    def message(self, message: Message, **meta: Any) -> str:
        self.messages_written += 1
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
                await asyncio.wrap_future(self._turn_end)
            data = await asyncio.to_thread(self._snap, "before_tool", tool_use_id, tool_name)
            self._append_checkpoint(data)

    def take_problems(self) -> list[str]:
        problems, self._problems = self._problems, []
        return problems

    def end_turn(self) -> None:
        if self._dirty_tree and self.shadow is not None and self._turn_end is None:
            # The state after the agent's tools ran: later differences were made by someone else. The agent
            # runs no tool before its next record, and that record waits for this snapshot.
            self._dirty_tree = False
            self._turn_end = _in_thread(self._turn_end_snap)
        if self._fd is not None:
            os.fsync(self._fd)

    # ---- the rest ---------------------------------------------------------------------------------

    def append(self, record: Record) -> str:
        """Write one record (redacted) as one line; it becomes the new leaf. Returns its id."""
        if self._fd is None:
            raise SessionError(f"session {self.session_id} is closed")
        self._settle()
        line = encode(self.redactor.obj(record))
        written = os.write(self._fd, line)
        if written != len(line):
            raise SessionError(f"short write to {self.path} ({written} of {len(line)} bytes)",
                               hint="is the disk full?")
        self._leaf_id = str(record["id"])
        return self._leaf_id

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
            if self.shadow is not None:
                self.shadow.stop()  # a warm-up still running must not delay exit
            if self._fd is not None:
                fd, self._fd = self._fd, None
                os.fsync(fd)
                os.close(fd)
            self._remember_index()
            if self._lock is not None:
                self._lock.release()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _remember_index(self) -> None:
        """Seed the project's next session with this index (done per turn too: a killed run never closes)."""
        if self.shadow is not None:
            with contextlib.suppress(OSError):
                self.shadow.remember_index()

    def _settle(self) -> None:
        """Write the pending turn-end checkpoint, waiting for its snapshot if it is still running."""
        pending, self._turn_end = self._turn_end, None
        if pending is not None and self._fd is not None:
            self._append_checkpoint(pending.result())

    def _turn_end_snap(self) -> dict[str, Any]:
        """Runs in a background thread: snapshot, then seed the project's next session with the index."""
        try:
            data = self._snap("turn_end", None, None)
        except Exception as err:  # reported in the record, like any failed checkpoint
            return {"phase": "turn_end", "error": f"{type(err).__name__}: {err}"}
        self._remember_index()
        return data

    def _snap(self, phase: str, tool_use_id: str | None, tool_name: str | None) -> dict[str, Any]:
        """Snapshot the tree (may run in a worker thread: it only runs git, never writes the file)."""
        assert self.shadow is not None
        data: dict[str, Any] = {"phase": phase}
        if tool_use_id is not None:
            data.update(tool_use_id=tool_use_id, tool_name=tool_name)
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


def _in_thread(fn: Callable[[], dict[str, Any]]) -> Future[dict[str, Any]]:
    """Run `fn` in a daemon thread (an interpreter exiting without `close()` does not wait for it)."""
    fut: Future[dict[str, Any]] = Future()

    def work() -> None:
        fut.set_running_or_notify_cancel()
        try:
            fut.set_result(fn())
        except BaseException as err:  # handed to whoever waits for the result
            fut.set_exception(err)

    threading.Thread(target=work, name="agentcli-turn-end-checkpoint", daemon=True).start()
    return fut
