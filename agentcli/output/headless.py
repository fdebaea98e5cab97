"""`agentcli -p`: one task, no human. Ask means deny; every outcome ends with a result and an exit status."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentcli.core.events import Notice, RunFinished, SessionStarted, TurnStarted
from agentcli.core.permissions import DenyingApprover
from agentcli.errors import AgentCliError
from agentcli.llm.messages import Message
from agentcli.output.printers import Printer, make_printer
from agentcli.output.schema import failed_result
from agentcli.settings.config import Settings

if TYPE_CHECKING:
    from agentcli.core.loop import Agent


class HeadlessApprover(DenyingApprover):
    name = "headless"
    interactive = False


STDOUT_CLOSED = 141  # what a shell reports for a process ended by SIGPIPE


def run_headless(settings: Settings, prompt: str, on_ready: Callable[[], None] | None = None) -> int:
    """Run one task. `on_ready` is called once start-up is over: at the first event of the model's reply (the
    agent is assembled and the HTTP stack loaded by then), or with the result of a run that got none."""
    printer = make_printer(
        settings.output_format, sys.stdout, sys.stderr,
        include_partial=settings.include_partial_messages, verbose=settings.verbose,
        include_hooks=settings.hooks.include_events,
    )
    try:
        return asyncio.run(_run(settings, prompt, printer, on_ready))
    except BrokenPipeError:
        silence_stdout()
        return STDOUT_CLOSED


def silence_stdout() -> None:
    """The reader of stdout went away (`| head -1`): later writes, and the interpreter's final flush, go to
    /dev/null instead of raising BrokenPipeError again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


async def _run(settings: Settings, prompt: str, printer: Printer, on_ready: Callable[[], None] | None) -> int:
    from agentcli.assembly.runtime import build

    try:
        built = await build(settings, HeadlessApprover())
    except AgentCliError as err:
        if settings.output_format != "text":
            printer.feed(RunFinished(failed_result(settings.session.session_id or "", err.code, err.one_line(),
                                                   err.exit_status)))
            printer.flush()
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    agent = built.agent
    # Notices follow system/init, which stream-json consumers expect first.
    pending = [Notice("warning", t) for t in built.session.notices] + [Notice("info", t) for t in built.info]
    stopped: list[int] = []
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, _stop, task, stopped, sig)
    try:
        return await _drive(agent, prompt, printer, settings, pending, on_ready)
    except asyncio.CancelledError:
        if not stopped:
            raise
        task.uncancel()
        return _stopped_result(agent, printer, settings, stopped[0])
    except BrokenPipeError:
        # stdout's reader left (`| head -1`): stop the run as SIGPIPE would, quietly, after the run has closed
        # its session and provider (below)
        silence_stdout()
        return STDOUT_CLOSED
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        with contextlib.suppress(BrokenPipeError):
            printer.flush()
        await agent.aclose()  # also stops the sandbox's allowlist proxy, before the process may end by os._exit


# A signal ends the run the way an error does: every process it started is killed (cancellation reaches the
# tools, then the loop's shutdown stops background shells) and a result line is still printed.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _stop(task: asyncio.Task[int], stopped: list[int], sig: int) -> None:
    if not stopped:
        stopped.append(sig)
        task.cancel()


def _stopped_result(agent: Agent, printer: Printer, settings: Settings, sig: int) -> int:
    """The result of a run a signal ended: is_error, code `interrupted` (SIGINT) or `terminated`, exit 128+N."""
    name = signal.Signals(sig).name
    code = "interrupted" if sig == signal.SIGINT else "terminated"
    status = 128 + sig
    printer.feed(RunFinished(failed_result(agent.session_id, code, f"run stopped by {name}", status)))
    if settings.output_format != "text":
        sys.stderr.write(f"agentcli: run stopped by {name} [{code}]\n")
    return status


async def _drive(agent: Agent, prompt: str, printer: Printer, settings: Settings, pending: list[Notice],
                 on_ready: Callable[[], None] | None) -> int:
    status = 1
    events = agent.run(_with_images(prompt, agent, settings))
    try:
        async for ev in events:
            printer.feed(ev)
            if on_ready is not None and not isinstance(ev, SessionStarted | TurnStarted | Notice):
                on_ready()
                on_ready = None
            if pending and isinstance(ev, SessionStarted):
                for notice in pending:
                    printer.feed(notice)
                pending = []
            if isinstance(ev, RunFinished):
                status = ev.result.exit_status
                if ev.result.is_error and settings.output_format != "text":
                    sys.stderr.write(f"agentcli: {ev.result.error_message} [{ev.result.error_code}]\n")
    finally:
        # a failed write (BrokenPipeError) closes the run now, so it records what it has
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    return status


def _with_images(prompt: str, agent: Agent, settings: Settings) -> str | Message:
    """`-p "what is wrong in @shot.png"`: mentioned images go with the prompt (other files are left to Read)."""
    if "@" not in prompt:
        return prompt
    from agentcli.llm.images import is_image, mentioned_image
    from agentcli.llm.messages import ContentBlock, TextBlock
    from agentcli.ui.attach import mentioned_paths

    images: list[ContentBlock] = [mentioned_image(p, agent.accepts_images)
                                  for p in mentioned_paths(prompt, settings.cwd) if is_image(p)]
    return Message("user", (*images, TextBlock(prompt))) if images else prompt
