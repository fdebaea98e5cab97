"""Whether a confined command started, so that a launch bubblewrap gave up on before running anything can be
made again.

bubblewrap mounts what the sandbox masks (agentcli.sandbox.bwrap) after agentcli built its argv; a mount point
that vanished in between (a service restarting removes its socket, a concurrent git replaces a hook folder) makes
it fail ("bwrap: Can't mkdir parents for …") before the command runs. The command announces its start on a pipe
(`announcing`, or the Bash tool's own wrapper): a launch that did not announce it and printed only such an error
ran nothing, so launching it again — wrapped anew, which masks what exists then — cannot run anything twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol, TypeVar

T = TypeVar("T")

# Runs inside the sandbox before the command (with bash: a pipe's number may have two digits, which sh's
# redirections refuse): one byte on the pipe numbered $1, that pipe closed (the command's children must not hold
# it), then the command in its place.
SHIM = 'printf . >&"$1" || exit 127; eval "exec $1>&-"; shift; exec "$@"'
MARK = b"."
# bubblewrap's own errors about a path it was to mount ("Can't find source path", "Can't create file at", "Can't
# mkdir …"); a refused namespace or uid map is another message, left to the sandbox's probe.
_PATH_ERROR = "bwrap: Can't "


def shim_shell() -> str | None:
    """The shell that runs `SHIM`; None where there is no bash (then nothing announces, and nothing is relaunched)."""
    from agentcli.proc.groups import which

    return which("bash")


def announcing(argv: list[str], fd: int) -> list[str]:
    """`argv`, made to write `MARK` on `fd` (open in the child) once the sandbox runs it."""
    return [shim_shell() or "/bin/bash", "-c", SHIM, "sh", str(fd), *argv]


# For a process whose spawner passes no extra descriptor (an MCP stdio server, started by the `mcp` SDK): one line on
# its stderr (a log file agentcli reads) before the command runs.
STDERR_MARK = "agentcli: the sandbox started this command"
_STDERR_SHIM = 'printf "%s\\n" "$1" >&2 || exit 127; shift; exec "$@"'


def announcing_on_stderr(argv: list[str]) -> list[str]:
    """`argv`, made to write `STDERR_MARK` as its first line of stderr once the sandbox runs it (unchanged where
    there is no bash: then `refused_before_start` never holds)."""
    shell = shim_shell()
    return [shell, "-c", _STDERR_SHIM, "sh", STDERR_MARK, *argv] if shell else argv


def refused_before_start(stderr: str) -> bool:
    """Whether a process started with `announcing_on_stderr` wrote only bubblewrap's error over a path it was to
    mount, and never its mark: it did not run, and may be launched again."""
    return shim_shell() is not None and STDERR_MARK not in stderr and path_error(stderr)


def path_error(output: str) -> bool:
    """Whether `output` is only bubblewrap failing over a path it was to mount."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return bool(lines) and all(line.startswith(_PATH_ERROR) for line in lines)


def announced(fd: int) -> bool:
    """After the launch ended: whether the command announced its start on the pipe read by `fd` (closed here). A
    pipe something still holds open without a mark counts as started: launching again is only for the certain
    case."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 1) != b""
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


async def wait_announced(fd: int) -> bool:
    """While the launch runs: True once the command announced its start, False if the launch ended first (every
    write end closed without a mark). Takes `fd`, and closes it."""
    loop = asyncio.get_running_loop()
    told: asyncio.Future[bool] = loop.create_future()

    class _Mark(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            if not told.done():
                told.set_result(True)

        def connection_lost(self, exc: Exception | None) -> None:
            if not told.done():
                told.set_result(False)

    pipe = os.fdopen(fd, "rb", 0)
    transport: asyncio.BaseTransport | None = None
    try:
        transport, _ = await loop.connect_read_pipe(_Mark, pipe)
        return await told
    finally:
        if transport is not None:
            transport.close()
        else:
            with contextlib.suppress(OSError):
                pipe.close()


class Relaunching(Protocol):
    """What `capture` needs of a session's sandbox (agentcli.sandbox.core.Sandbox)."""

    @property
    def announces(self) -> bool: ...

    def wrap(self, argv: list[str], cwd: Path, env: dict[str, str], *,
             extra_ro: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]: ...

    def relaunch(self, started: bool, output: str) -> bool: ...


async def relaunched(launch: Callable[[int], Awaitable[T]], gave_up: Callable[[T], bool]) -> tuple[T, bool]:
    """`launch(fd)`'s result and whether its command announced its start on `fd` (the write end of a pipe, for
    the launch to pass to its child and wrap with `announcing`); launched once more when it did not start and
    `gave_up(result)` says bubblewrap failed before it (as above)."""
    for again in (True, False):
        mark_r, mark_w = os.pipe()
        try:
            result = await launch(mark_w)
        except BaseException:
            os.close(mark_r)
            raise
        finally:
            os.close(mark_w)
        started = announced(mark_r)
        if started or not (again and gave_up(result)):
            return result, started
    raise AssertionError("unreachable")


async def capture(sandbox: Relaunching, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run `argv` confined by `sandbox` to completion, stdout and stderr interleaved: (exit status, output);
    launched once more when bubblewrap gave up before it started, as above."""
    from agentcli.proc.groups import run_capture

    if not sandbox.announces:
        wrapped, wenv = sandbox.wrap(argv, cwd, env)
        status, out, _ = await run_capture(wrapped, cwd, merge_stderr=True, env=wenv)
        return status, out

    async def launch(fd: int) -> tuple[int, bytes]:
        wrapped, wenv = sandbox.wrap(announcing(argv, fd), cwd, env)
        status, out, _ = await run_capture(wrapped, cwd, merge_stderr=True, env=wenv, pass_fds=(fd,))
        return status, out

    (status, out), _ = await relaunched(
        launch, lambda done: done[0] != 0 and sandbox.relaunch(False, done[1].decode("utf-8", "replace")))
    return status, out
