"""One writer per session: an `fcntl` lock on `<id>.lock` beside the session file.

The kernel drops the lock when the process dies (even by SIGKILL), so a crash never leaves a stale lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from agentcli.errors import SessionLockedError


class SessionLock:
    """Held from `acquire()` to `release()` (or process exit)."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._fd: int | None = None

    def acquire(self) -> SessionLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read_holder(fd)
            os.close(fd)
            who = f"process {holder}" if holder else "another process"
            raise SessionLockedError(
                f"session {self.session_id} is in use by {who}",
                hint="continue it in a new session with --fork-session, or wait for the other run to end",
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None


def is_locked(path: Path) -> bool:
    """Whether a live process holds the lock (probed without blocking)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _read_holder(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""
