"""Background shells: `Bash(run_in_background=true)` starts one; BashOutput reads it; KillShell stops it.

Shells live in `ctx.shells` for the session. Each runs under the session's sandbox (with
bubblewrap, its own PID namespace that dies with it or with agentcli) in its own process group, with a watcher
task; when the event loop shuts down (end of a headless run) the watcher is cancelled and kills the group, so
nothing the agent started outlives the session. `kill_all(ctx)` does the same on demand.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.proc.groups import kill_and_reap, kill_group, kill_tree, read_available, spawn_group, wait_gone
from agentcli.sandbox.started import wait_announced
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.shells import BackgroundShell
from agentcli.tools.specs import FromSpec
from agentcli.tools.text import cap_head_tail

KILL_GRACE_S = 2.0
# After the shell exits, how long to wait for the rest of its output (children may still hold the pipe).
DRAIN_S = 0.5


class _Pipe(asyncio.Protocol):
    def __init__(self, shell: BackgroundShell) -> None:
        self.shell = shell

    def data_received(self, data: bytes) -> None:
        self.shell.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.shell.eof.set()


def shells(ctx: ToolContext) -> dict[str, BackgroundShell]:
    return ctx.shells


async def _watch(shell: BackgroundShell, ctx: ToolContext, absent: list[Path]) -> None:
    try:
        await shell.proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(shell.eof.wait(), DRAIN_S)
    except asyncio.CancelledError:
        # The loop is shutting down (or the session closing): nothing may outlive it.
        await kill_and_reap(shell.proc, launcher=shell.launcher)
        if shell.transport is not None:
            shell.transport.close()
        raise
    finally:
        if absent and ctx.sandbox is not None:
            ctx.sandbox.sweep(absent)
        shell.finished.set()


Wrapped = Callable[[int | None], tuple[list[str], dict[str, str]]]


async def start(command: str, wrapped: Wrapped, cwd: Path, bash: str, ctx: ToolContext) -> BackgroundShell:
    """Start `command` in the background; its output collects until BashOutput reads it. `wrapped(fd)` gives the
    argv and environment that run it (`bash -c command`, confined by the caller, the Bash tool, to the session's
    sandbox; made to announce its start on `fd` when one is given: agentcli.sandbox.started)."""
    absent = ctx.sandbox.absent_protected() if ctx.sandbox is not None and ctx.sandbox.confining else []
    proc, r, early, launcher = await _launch(wrapped, cwd, bash, ctx)
    table = shells(ctx)
    shell = BackgroundShell(f"bash_{len(table) + 1}", command, proc)
    shell.launcher = launcher
    if early:
        shell.feed(early)
    table[shell.id] = shell
    shell.watcher = asyncio.ensure_future(_watch(shell, ctx, absent))
    pipe = os.fdopen(r, "rb", 0)
    try:
        shell.transport, _ = await asyncio.get_running_loop().connect_read_pipe(lambda: _Pipe(shell), pipe)
    except BaseException:
        pipe.close()
        kill_group(proc.pid)
        raise
    return shell


async def _launch(wrapped: Wrapped, cwd: Path, bash: str,
                  ctx: ToolContext) -> tuple[asyncio.subprocess.Process, int, bytes, bool]:
    """Spawn the shell: (process, read end of its output, output read already, whether a launcher runs it). Under
    bubblewrap, wait until the command announces its start; a launch that ended first over a path bubblewrap
    could not mount (vanished since the argv was built) is made once more, wrapped anew."""
    announce = ctx.sandbox is not None and ctx.sandbox.announces
    for again in (announce, False):
        mark_r, mark_w = os.pipe() if again else (-1, -1)
        try:
            argv, env = wrapped(mark_w if again else None)
            r, w = os.pipe()
            try:
                proc = await spawn_group(argv, cwd, env, w, pass_fds=(mark_w,) if again else ())
            except BaseException:
                os.close(r)
                raise
            finally:
                os.close(w)
        finally:
            if again:
                os.close(mark_w)
        try:
            if not again or await wait_announced(mark_r):
                return proc, r, b"", argv[0] != bash
        except BaseException:
            os.close(r)
            await kill_and_reap(proc, launcher=True)
            raise
        await proc.wait()
        early = read_available(r)
        assert ctx.sandbox is not None
        if not ctx.sandbox.relaunch(False, early.decode("utf-8", "replace")):
            return proc, r, early, argv[0] != bash
        os.close(r)
    raise AssertionError("unreachable")


async def kill(shell: BackgroundShell) -> None:
    """SIGTERM the shell's process group and descendants, then SIGKILL whatever is left after a grace period;
    returns once they are gone."""
    if shell.proc.returncode is None:
        shell.killed = True
        # Known before SIGTERM: a sandbox's namespace init ignores SIGTERM and is orphaned once the launcher
        # above it exits on SIGTERM, so the SIGKILL after the grace period must still know it.
        kids = await kill_tree(shell.proc, signal.SIGTERM, launcher=shell.launcher)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(shell.finished.wait(), KILL_GRACE_S)
    else:
        kids = []
    # Also children that ignored SIGTERM after their parent exited.
    kids = await kill_tree(shell.proc, known=kids)
    await shell.finished.wait()
    await wait_gone(kids)


async def kill_all(ctx: ToolContext) -> None:
    """Stop every background shell of the session (for a front end closing a session)."""
    for shell in list(shells(ctx).values()):
        await kill(shell)
        if shell.transport is not None:
            shell.transport.close()


class BashOutputTool(FromSpec, spec="BashOutput"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        shell = shells(ctx).get(args["bash_id"])
        if shell is None:
            known = ", ".join(shells(ctx)) or "none"
            return ToolOutput.error(f"No background shell with ID {args['bash_id']!r} (known: {known}).")
        regex = None
        if args.get("filter"):
            try:
                regex = re.compile(args["filter"])
            except re.error as e:
                return ToolOutput.error(f"Invalid filter regular expression: {e}")
        text, dropped = shell.take()
        if regex is not None:
            text = "\n".join(ln for ln in text.splitlines() if regex.search(ln))
        parts = [f"Status: {shell.status()}"]
        if dropped:
            parts.append(f"({dropped} bytes of older unread output were dropped.)")
        body = cap_head_tail(ctx.redact(text.rstrip("\n")), ctx.max_output_chars)
        parts.append(body if body else "(no new output)")
        meta = {"status": shell.status(), "exit_code": shell.proc.returncode}
        return ToolOutput("\n".join(parts), metadata=meta)


class KillShellTool(FromSpec, spec="KillShell"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        shell = shells(ctx).get(args["shell_id"])
        if shell is None:
            return ToolOutput.error(f"No background shell with ID {args['shell_id']!r}.")
        if shell.proc.returncode is not None:
            return ToolOutput(f"Shell {shell.id} had already finished ({shell.status()}).")
        await kill(shell)
        return ToolOutput(f"Killed background shell {shell.id} ({shell.command[:80]}).")
