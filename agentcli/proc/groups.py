"""Finding and running helper programs (bash, git, rg) without importing shutil or tempfile at start-up."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from pathlib import Path

from agentcli.proc.reaper import descendants


def which(name: str, env: dict[str, str] | None = None) -> str | None:
    """The first executable `name` on PATH (of `env`, else ours), like `shutil.which` for plain names. Relative
    PATH entries (`.`, an empty one, `bin`) are skipped: they would be looked up in the project, where a
    repository can put its own `git` or `bash`."""
    for d in os.get_exec_path(env):
        if not os.path.isabs(d):
            continue
        candidate = os.path.join(d, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_rg() -> str | None:
    """The ripgrep binary: the one the `ripgrep` wheel installs next to our Python, else one on PATH."""
    name = "rg.exe" if os.name == "nt" else "rg"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return which(name)


def read_available(fd: int) -> bytes:
    """What is in the pipe read by `fd` now, without blocking if something still holds its write end (a
    finished launch's background child); `fd` stays open and blocking."""
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    try:
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
    finally:
        os.set_blocking(fd, True)
    return b"".join(chunks)


def temp_file(prefix: str) -> str:
    """Create an empty private file in the temp directory and return its path."""
    base = os.environ.get("TMPDIR") or "/tmp"
    while True:
        path = os.path.join(base, f"{prefix}{os.getpid()}-{os.urandom(6).hex()}")
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            continue
        return path


async def run_capture(
    argv: list[str], cwd: Path, *, merge_stderr: bool = False, env: dict[str, str] | None = None,
    pass_fds: tuple[int, ...] = (),
) -> tuple[int, bytes, bytes]:
    """Run a helper program to completion; (exit code, stdout, stderr) — with `merge_stderr`, both interleaved in
    stdout and stderr empty. Killed if we are cancelled."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        pass_fds=pass_fds,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE,
    )
    try:
        out, err = await proc.communicate()
    except asyncio.CancelledError:
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode or 0, out, err or b""


def kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """Signal a whole process group (started with `start_new_session`) and every descendant of its leader,
    wherever they moved (a sandbox's namespace init runs in a group of its own); gone already is fine."""
    kids = descendants(pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
    for kid in kids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(kid, sig)


async def kill_tree(proc: asyncio.subprocess.Process, sig: int = signal.SIGKILL, *, launcher: bool = False,
                    known: list[int] | None = None) -> list[int]:
    """Signal `proc`'s group and every descendant (plus `known` pids found earlier); returns who was signalled.

    `launcher`: `proc` is a sandbox launcher (bubblewrap) whose child — the namespace init — may not exist yet in
    the first milliseconds; we wait (≤ 1 s) until it does, since a launcher killed just before it forks would
    orphan that init before the init has asked to die with its parent."""
    if launcher:
        deadline = time.monotonic() + 1.0
        while not descendants(proc.pid) and proc.returncode is None and alive(proc.pid) \
                and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
    kids = list(dict.fromkeys([*(known or ()), *descendants(proc.pid)]))
    kill_group(proc.pid, sig)
    for kid in kids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(kid, sig)
    return kids


async def kill_and_reap(proc: asyncio.subprocess.Process, *, launcher: bool = False) -> None:
    """SIGKILL `proc`'s group and every descendant (see `kill_tree`), reap `proc`, and return once the
    descendants are gone too. Safe to await while a cancellation is being handled."""
    kids = await kill_tree(proc, launcher=launcher)
    await asyncio.shield(proc.wait())
    await wait_gone(kids)


async def wait_or_kill(proc: asyncio.subprocess.Process, timeout_s: float, *, launcher: bool = False) -> bool:
    """Wait for `proc` (the leader of its own process group) to exit; on timeout or cancellation kill the whole
    tree and reap it first. Returns whether it timed out; a cancellation goes on once the tree is dead."""
    try:
        await asyncio.wait_for(proc.wait(), timeout_s)
        return False
    except TimeoutError:
        await kill_and_reap(proc, launcher=launcher)
        return True
    except asyncio.CancelledError:
        await kill_and_reap(proc, launcher=launcher)
        raise


async def wait_gone(pids: list[int], timeout_s: float = 2.0) -> None:
    """Return once every pid is dead (a killed namespace dies asynchronously), or after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


PF_EXITING = 0x4  # the kernel's per-task flag: do_exit() has begun, no user code will run again


def alive(pid: int) -> bool:
    """Whether `pid` is a running process: not gone, not a zombie, and not already exiting (a process SIGKILLed
    a moment ago, or killed with its pid namespace, is torn down asynchronously; it can do nothing more)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return stat_alive(f.read())
    except OSError:
        return False


def stat_alive(stat: bytes) -> bool:
    """`alive` from one `/proc/PID/stat` line (fields after the command name: state, ppid, …, flags 7th)."""
    try:
        fields = stat.rsplit(b")", 1)[1].split()
        return fields[0] not in (b"Z", b"X") and not int(fields[6]) & PF_EXITING
    except (IndexError, ValueError):
        return False


async def spawn_group(
    argv: list[str], cwd: Path, env: dict[str, str], out_fd: int, pass_fds: tuple[int, ...] = ()
) -> asyncio.subprocess.Process:
    """Start `argv` in a new process group, stdin closed, stdout and stderr to `out_fd` (and `pass_fds` open).

    If we are cancelled while asyncio is still setting the process up, asyncio would kill only the leader;
    the spawn is shielded instead, and the whole group is killed before the cancellation goes on.
    """
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out_fd,
            stderr=out_fd,
            start_new_session=True,
            pass_fds=pass_fds,
        )
    )
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            proc = await spawn
            kill_group(proc.pid)
            await proc.wait()
        raise
