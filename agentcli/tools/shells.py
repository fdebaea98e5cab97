"""A background shell's record (its process, unread output, status), kept in the tool context's `shells` table;
agentcli.tools.background starts, reads and ends them."""

from __future__ import annotations

import asyncio
import signal
import time

# Unread output kept per shell; older unread output is dropped (and counted) beyond this.
MAX_UNREAD_BYTES = 1 << 20


class BackgroundShell:
    """One background command: its process, unread output and final status."""

    def __init__(self, shell_id: str, command: str, proc: asyncio.subprocess.Process) -> None:
        self.id = shell_id
        self.command = command
        self.proc = proc
        self.started = time.monotonic()
        self.unread = bytearray()
        self.dropped = 0
        self.killed = False
        self.output_arrived = asyncio.Event()
        self.finished = asyncio.Event()
        self.eof = asyncio.Event()
        self.watcher: asyncio.Task[None] | None = None
        self.transport: asyncio.BaseTransport | None = None
        self.launcher = False  # started through a sandbox launcher (agentcli.proc.groups.kill_tree)

    def feed(self, data: bytes) -> None:
        self.unread += data
        excess = len(self.unread) - MAX_UNREAD_BYTES
        if excess > 0:
            self.dropped += excess
            del self.unread[:excess]
        self.output_arrived.set()

    def take(self) -> tuple[str, int]:
        """The output not yet read (decoded) and how many older bytes were dropped; marks it read."""
        text, dropped = self.unread.decode("utf-8", errors="replace"), self.dropped
        self.unread.clear()
        self.dropped = 0
        self.output_arrived.clear()
        return text, dropped

    def status(self) -> str:
        code = self.proc.returncode
        if code is None:
            return "running"
        if self.killed:
            return "killed"
        return f"exited with code {code}" if code >= 0 else f"killed by signal {signal.Signals(-code).name}"
