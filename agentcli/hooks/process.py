"""Running one hook command: JSON on stdin, stdout and stderr captured (never onto the terminal), a timeout, and
the whole process group killed on timeout or cancellation (Esc)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentcli.proc.groups import kill_and_reap, wait_or_kill, which

MAX_OUTPUT = 1 << 20  # bytes kept of each stream; a hook that prints more is cut, not buffered without end
AFTER_KILL_S = 2.0  # how long a killed hook's pipes may stay open (a grandchild that left the group)


@dataclass(frozen=True, slots=True)
class Finished:
    exit_code: int | None  # None: killed (timeout or cancelled)
    stdout: str
    stderr: str
    duration_ms: int
    timed_out: bool = False
    started: bool = True  # False: the sandbox gave up before the command ran (it never announced its start)


def shell() -> str:
    """Claude Code runs hook commands with bash; sh where there is none."""
    return which("bash") or "/bin/sh"


Wrap = Callable[[list[str], Path, dict[str, str]], tuple[list[str], dict[str, str]]]


async def run_command(
    command: str, stdin: bytes, cwd: Path, env: dict[str, str], timeout_s: float, wrap: Wrap | None = None
) -> Finished:
    """Run one hook; `wrap` confines it (the session's kernel sandbox) when given. A confined hook announces its
    start (agentcli.sandbox.started): one whose sandbox gave up before it ran, over a path it could not mount
    (vanished since the argv was built), is launched once more, wrapped anew."""
    t0 = time.monotonic()
    argv = [shell(), "-c", command]
    from agentcli.sandbox.started import announcing, path_error, relaunched, shim_shell

    if wrap is None or shim_shell() is None:
        if wrap is not None:
            argv, env = wrap(argv, cwd, env)
        return await _run_once(argv, env, stdin, cwd, timeout_s, t0, launcher=wrap is not None)

    async def launch(fd: int) -> Finished:
        wrapped, wenv = wrap(announcing(argv, fd), cwd, env)
        return await _run_once(wrapped, wenv, stdin, cwd, timeout_s, t0, launcher=True, mark=fd)

    done, started = await relaunched(
        launch, lambda done: done.exit_code == 1 and not done.stdout and path_error(done.stderr))
    return done if started else dataclasses.replace(done, started=False)


async def _run_once(argv: list[str], env: dict[str, str], stdin: bytes, cwd: Path, timeout_s: float, t0: float,
                    *, launcher: bool, mark: int | None = None) -> Finished:
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, start_new_session=True, pass_fds=(mark,) if mark is not None else (),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    readers = [asyncio.ensure_future(_read(proc.stdout)), asyncio.ensure_future(_read(proc.stderr))]
    try:
        try:
            await _feed(proc.stdin, stdin)
        except asyncio.CancelledError:
            await kill_and_reap(proc, launcher=launcher)
            raise
        timed_out = await wait_or_kill(proc, timeout_s, launcher=launcher)
    except asyncio.CancelledError:
        for r in readers:
            r.cancel()
        raise
    # The group is gone, but a process that left it could still hold the pipes: read what is there, then stop.
    done, pending = await asyncio.wait(readers, timeout=AFTER_KILL_S if timed_out else None)
    for r in pending:
        r.cancel()
    out, err = (r.result() if r in done else b"" for r in readers)
    ms = int((time.monotonic() - t0) * 1000)
    code = None if timed_out else proc.returncode
    return Finished(code, _text(out), _text(err), ms, timed_out)


async def _feed(pipe: asyncio.StreamWriter, data: bytes) -> None:
    """Write the input and close stdin; a hook that exits without reading it is fine."""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        pipe.write(data)
        await pipe.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        pipe.close()


async def _read(stream: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := await stream.read(65536):
        if size < MAX_OUTPUT:
            chunks.append(chunk[: MAX_OUTPUT - size])
        size += len(chunk)
    return b"".join(chunks)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def hook_env(
    base: dict[str, str], project_dir: Path, secrets: tuple[str, ...], drop: tuple[str, ...]
) -> dict[str, str]:
    """The hook's environment: ours without provider keys (a hook never needs them), plus the project directory
    under both Claude Code's name and ours."""
    env = {k: v for k, v in base.items() if k not in drop and v not in secrets}
    env["CLAUDE_PROJECT_DIR"] = str(project_dir)
    env["AGENTCLI_PROJECT_DIR"] = str(project_dir)
    env.setdefault("PATH", os.defpath)
    return env
