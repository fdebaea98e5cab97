"""Shared pieces for the sandbox tests: a real project, a session sandbox over it, Bash calls, and a look at
which processes are alive (by a marker in their command line)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import shutil
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentcli.sandbox.core import Sandbox
from agentcli.sandbox.spec import SandboxSpec
from agentcli.tools.background import kill_all
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.bash import BashTool


def project(base: Path) -> Path:
    root = Path(os.path.realpath(base)) / "proj"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("a = 1\n")
    (root / ".env").write_text("TOKEN=env-marker\n")
    (root / "src" / ".env.local").write_text("TOKEN=nested-marker\n")
    return root


@contextlib.contextmanager
def visible_home() -> Iterator[Path]:
    """A home directory visible inside the sandbox (not under its private /tmp) whose dot-folders the session's
    socket walk enters, and no other test's sandbox does: that walk skips folders named `cache`
    (agentcli.sandbox.sockets), so other pytest workers' sessions never mask, nor race on, a socket put here."""
    base = Path("/var/tmp") / f"agentcli-test-{uuid.uuid4().hex[:12]}"
    path = base / "cache" / "home"
    path.mkdir(parents=True)
    try:
        yield path
    finally:
        shutil.rmtree(base)


@contextlib.contextmanager
def host_service(home: Path) -> Iterator[tuple[Path, socket.socket]]:
    """A listening host socket in a dot-folder of `home` (where the session's socket walk finds it)."""
    folder = home / ".service"
    folder.mkdir()
    path = folder / "service.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    try:
        yield path, server
    finally:
        server.close()


def context(root: Path, mode: str = "workspace-write", *, network: bool = False, home: Path | None = None,
            add_dirs: tuple[Path, ...] = ()) -> ToolContext:
    home = home or root.parent / "home"
    home.mkdir(exist_ok=True)
    spec = SandboxSpec(mode, root, (root, *add_dirs), network=network, home=home,
                       agentcli_home=home / ".agentcli")
    return ToolContext(project_root=root, add_dirs=add_dirs, shell_cwd=root, env=dict(os.environ),
                       sandbox=Sandbox(spec))


def bash(ctx: ToolContext, command: str, **args: Any) -> ToolOutput:
    async def go() -> ToolOutput:
        try:
            return await BashTool().run({"command": command, **args}, ctx)
        finally:
            if args.get("run_in_background"):
                await kill_all(ctx)

    return asyncio.run(go())


def alive(marker: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line contains `marker`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(pid))
    return found


def marker_process(marker: str, seconds: int = 300, ready: Path | None = None) -> str:
    """A shell snippet starting a long sleeper whose command line carries `marker`; with `ready` (a `Ready`
    FIFO's path) it writes a line there once it runs."""
    if ready is None:
        return f"python3 -c 'import time, sys; time.sleep({seconds})' {marker}"
    code = f'import time, sys; open(sys.argv[2], "w").write("up\\n"); time.sleep({seconds})'
    return f"python3 -c '{code}' {marker} {ready}"


class Ready:
    """A FIFO the sleepers write a line to once they run, so a test waits on their start (poll), not on a clock.
    The test keeps a write end open itself: without one, the FIFO would report a hang-up between sleepers."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self._read = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self._keep = os.open(path, os.O_WRONLY)

    def wait(self, count: int, timeout: float = 20.0) -> bool:
        """Whether `count` sleepers said they run within `timeout` seconds."""
        poller = select.poll()
        poller.register(self._read, select.POLLIN)
        deadline, seen = time.monotonic() + timeout, 0
        while seen < count:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                return False
            seen += os.read(self._read, 4096).count(b"\n")
        return True

    def close(self) -> None:
        os.close(self._read)
        os.close(self._keep)


def gone(marker: str, timeout: float = 5.0) -> bool:
    """Wait until no live process carries `marker`: on pidfds, which become readable when their process ends."""
    deadline = time.monotonic() + timeout
    while pids := alive(marker):
        fds: list[int] = []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                fds.append(os.pidfd_open(pid))
        try:
            poller = select.poll()
            for fd in fds:
                poller.register(fd, select.POLLIN)
            left = deadline - time.monotonic()
            if left <= 0 or (fds and not poller.poll(left * 1000)):
                return False
        finally:
            for fd in fds:
                os.close(fd)
    return True
