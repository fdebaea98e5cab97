"""Bash: run a shell command in a working directory that persists between calls.

The command runs as `bash -c` in its own process group (so a timeout or a cancel kills its children too), under
the session's sandbox (agentcli.sandbox: with bubblewrap, a PID namespace, so nothing it starts outlives it), stdin
closed, stdout and stderr interleaved into one pipe that we own. Owning the pipe matters: on Python 3.11
`asyncio.subprocess.Process.wait()` waits for the child's pipes to close, so a background grandchild
(`server &`) would hang the call; with our own pipe, exit and end-of-output are watched separately.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

from agentcli.proc.groups import kill_and_reap, read_available, spawn_group, temp_file, wait_or_kill, which
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.paths import resolve_in_project
from agentcli.tools.specs import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, FromSpec
from agentcli.tools.text import HeadTail

# How long to keep reading after the shell exits, for output still in flight from its children.
DRAIN_S = 0.25

# Linux limits one exec argument to 128 KiB; longer commands (big heredocs) travel in a file instead.
MAX_ARG_CHARS = 100_000

# `$1` is the command (or `$3` a file holding it). `$2` is the number of a pipe's write end: it becomes fd 3,
# which says the command starts (one `.`: agentcli.sandbox.started) and then only the EXIT trap uses (to report
# the final working directory, even after `exit`); the command itself runs with fd 3 closed, so its background
# children cannot hold the pipe open. A pipe rather than a temporary file, so nothing is left behind if agentcli
# itself is killed. A signal that ends the shell while the command runs (`kill $$`) runs the trap with fd 3 still
# closed: then nothing is reported (the working directory stays as it was), and bash's complaint is not shown.
_WRAPPER = """\
__agentcli_cmd=$1
if [ -n "$3" ]; then __agentcli_cmd=$(< "$3"); fi
[ "$2" = 3 ] || eval "exec 3>&$2 $2>&-"
shift $#
printf . >&3
trap '{ pwd >&3; } 2>/dev/null' EXIT
eval "$__agentcli_cmd" 3>&-
"""

def _bash() -> str:
    return which("bash") or "/bin/bash"


class _Collect(asyncio.Protocol):
    """Feeds pipe data into a HeadTail and resolves `done` at end of file."""

    def __init__(self, sink: HeadTail, done: asyncio.Future[None]) -> None:
        self.sink = sink
        self.done = done

    def data_received(self, data: bytes) -> None:
        self.sink.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


class BashTool(FromSpec, spec="Bash"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        if args.get("run_in_background"):
            return await _run_in_background(args["command"], ctx)
        timeout_ms = min(int(args.get("timeout") or DEFAULT_TIMEOUT_MS), MAX_TIMEOUT_MS)
        timeout_s = min(timeout_ms / 1000, ctx.tool_timeout_s)
        cwd, notes = _start_dir(ctx)
        started = time.monotonic()
        absent = ctx.sandbox.absent_protected() if ctx.sandbox is not None and ctx.sandbox.confining else []
        try:
            code, timed_out, out, new_cwd = await _execute(args["command"], cwd, timeout_s, ctx)
        except OSError as e:  # no bash, too many open files …
            return ToolOutput.error(f"Could not run the command: {e}")
        notes += _update_cwd(new_cwd, ctx)
        if code != 0 and not timed_out and ctx.sandbox is not None:
            ctx.sandbox.recheck()  # a remembered "sandbox works" may be stale (agentcli.sandbox.verdict)
        notes += _swept(ctx, absent) + _sandbox_failure(ctx)
        parts = [out.rstrip("\n")] if out.strip() else []
        if timed_out:
            parts.append(f"Command timed out after {timeout_s:g} s; it and every process it started were killed.")
        elif code < 0:
            parts.append(f"Command killed by signal {signal.Signals(-code).name}.")
        elif code != 0:
            parts.append(f"Exit code {code}")
        parts.extend(notes)
        meta = {
            "exit_code": code,
            "timed_out": timed_out,
            "cwd": str(ctx.shell_cwd or ctx.project_root),
            "duration_ms": round((time.monotonic() - started) * 1000),
        }
        denied = _sandbox_denial(ctx, out, code)
        if denied:
            meta["sandbox_denied"] = denied
        return ToolOutput("\n".join(parts) or "(no output)", is_error=timed_out or code != 0, metadata=meta)


async def _run_in_background(command: str, ctx: ToolContext) -> ToolOutput:
    from agentcli.tools import background  # only sessions that use background shells pay for it

    cwd, notes = _start_dir(ctx)
    bash = _bash()

    def wrapped(fd: int | None) -> tuple[list[str], dict[str, str]]:
        from agentcli.sandbox.started import announcing

        argv = [bash, "-c", command]
        return confine(ctx, argv if fd is None else announcing(argv, fd), cwd, _env(ctx))

    try:
        shell = await background.start(command, wrapped, cwd, bash, ctx)
    except OSError as e:
        return ToolOutput.error(f"Could not start the command: {e}")
    text = (
        f"Command running in background with ID: {shell.id}. Read its output with BashOutput "
        f'(bash_id "{shell.id}"); stop it with KillShell (shell_id "{shell.id}").'
    )
    return ToolOutput("\n".join([text, *notes]), metadata={"background_id": shell.id, "pid": shell.proc.pid})


def _sandbox_denial(ctx: ToolContext, out: str, code: int) -> str | None:
    """The line showing the sandbox stopped this command, when it was confined (see agentcli.sandbox.denied)."""
    if ctx.sandbox is None or not ctx.sandbox.confining:
        return None
    from agentcli.sandbox.denied import sandbox_denial

    return sandbox_denial(out, code, network_off=not ctx.sandbox.spec.network, writable=ctx.sandbox.spec.writable)


def _sandbox_failure(ctx: ToolContext) -> list[str]:
    """Said once, in the first command's result, when the session's sandbox turned out not to work."""
    if ctx.sandbox is None or not ctx.sandbox.failure or ctx.sandbox_failure_told:
        return []
    ctx.sandbox_failure_told = True
    return [f"({ctx.sandbox.failure})"]


def _swept(ctx: ToolContext, absent: list[Path]) -> list[str]:
    if ctx.sandbox is None or not absent:
        return []
    return [f"({line})" for line in ctx.sandbox.sweep(absent)]


def confine(
    ctx: ToolContext, argv: list[str], cwd: Path, env: dict[str, str], extra_ro: tuple[str, ...] = ()
) -> tuple[list[str], dict[str, str]]:
    """`argv` under the session's sandbox, if it has one."""
    if ctx.sandbox is None:
        return argv, env
    return ctx.sandbox.wrap(argv, cwd, env, extra_ro=extra_ro)


def _env(ctx: ToolContext) -> dict[str, str]:
    env = dict(ctx.env if ctx.env is not None else os.environ)
    env.setdefault("PAGER", "cat")
    env.setdefault("GIT_PAGER", "cat")
    env["AGENTCLI"] = "1"
    return env


def _start_dir(ctx: ToolContext) -> tuple[Path, list[str]]:
    cwd = ctx.shell_cwd or ctx.project_root
    if os.path.isdir(cwd):
        return cwd, []
    ctx.shell_cwd = ctx.project_root
    return ctx.project_root, [f"(The previous working directory {cwd} is gone; ran in {ctx.project_root}.)"]


def _update_cwd(new: str, ctx: ToolContext) -> list[str]:
    """Keep the shell's final directory for the next call, unless it left the project."""
    if not new or not os.path.isdir(new):
        return []
    if resolve_in_project(new, ctx).inside:
        ctx.shell_cwd = Path(new)
        return []
    ctx.shell_cwd = ctx.project_root
    return [f"(Shell working directory reset to {ctx.project_root}: {new} is outside the project.)"]


async def _execute(command: str, cwd: Path, timeout_s: float, ctx: ToolContext) -> tuple[int, bool, str, str]:
    """Run the command; (exit code, whether it timed out, redacted capped output, final working directory). A
    launch the sandbox gave up on before the command started is made once more (agentcli.sandbox.started)."""
    cmd_file = ""
    if len(command) > MAX_ARG_CHARS:
        cmd_file = temp_file("agentcli-cmd-")
        with open(cmd_file, "w", encoding="utf-8") as f:
            f.write(command)
        command = ""
    try:
        for again in (True, False):
            code, timed_out, out, report = await _launch(command, cmd_file, cwd, timeout_s, ctx)
            started = report.startswith(".")
            if not (again and code != 0 and ctx.sandbox is not None and ctx.sandbox.relaunch(started, out)):
                return code, timed_out, out, report.removeprefix(".").strip()
        raise AssertionError("unreachable")
    finally:
        if cmd_file:
            os.unlink(cmd_file)


async def _launch(command: str, cmd_file: str, cwd: Path, timeout_s: float,
                  ctx: ToolContext) -> tuple[int, bool, str, str]:
    """One launch; (exit code, timed out, output, what the wrapper wrote on its pipe)."""
    cwd_r, cwd_w = os.pipe()
    try:
        argv = [_bash(), "-c", _WRAPPER, "bash", command, str(cwd_w), cmd_file]
        argv, env = confine(ctx, argv, cwd, _env(ctx), (cmd_file,) if cmd_file else ())
        code, timed_out, out = await _run_group(argv, cwd, env, timeout_s, ctx, cwd_w)
        return code, timed_out, out, read_available(cwd_r).decode("utf-8", errors="replace")
    finally:
        os.close(cwd_r)


async def _run_group(
    argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float, ctx: ToolContext, cwd_w: int
) -> tuple[int, bool, str]:
    """Run `argv` in its own process group with a timeout; (exit code, timed out, redacted capped output)."""
    loop = asyncio.get_running_loop()
    sink = HeadTail(ctx.max_output_chars)
    done: asyncio.Future[None] = loop.create_future()
    r, w = os.pipe()
    try:
        proc = await spawn_group(argv, cwd, env, w, pass_fds=(cwd_w,))
    except BaseException:
        os.close(r)
        raise
    finally:
        os.close(w)
        os.close(cwd_w)
    pipe = os.fdopen(r, "rb", 0)
    transport: asyncio.BaseTransport | None = None
    launcher = argv[0] != _bash()
    try:
        transport, _ = await loop.connect_read_pipe(lambda: _Collect(sink, done), pipe)
        timed_out = await wait_or_kill(proc, timeout_s, launcher=launcher)
        # On timeout a background child still holds the pipe; what it writes later is not ours to wait for.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(done), DRAIN_S)
    except asyncio.CancelledError:
        await kill_and_reap(proc, launcher=launcher)
        raise
    finally:
        if transport is not None:
            transport.close()
        pipe.close()
    code = proc.returncode if proc.returncode is not None else -1
    return code, timed_out, sink.text(ctx.max_output_chars, ctx.redact)
