"""`agentcli -p`: one task, no human. Ask means deny; every outcome ends with a result and an exit status.

A consumer of agentcli.driver: the driver runs the turn (start-up notices and failures in the stream, the
stopped result of a signal); this prints it in the chosen format (agentcli.output.printers) and maps the result
to the exit status."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentcli.core.events import Notice, RunFinished, SessionStarted, TurnStarted
from agentcli.core.permissions import DenyingApprover
from agentcli.driver import Driver
from agentcli.llm.messages import Message
from agentcli.output.printers import Printer, make_printer
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
    driver = Driver(settings, HeadlessApprover())
    status = 1
    try:
        with driver.signals():
            failed = await driver.start()
            message = prompt if failed is not None else _with_images(prompt, driver.agent, settings)
            async with contextlib.aclosing(driver.run(message)) as events:
                async for ev in events:
                    printer.feed(ev)
                    if on_ready is not None and not isinstance(ev, SessionStarted | TurnStarted | Notice):
                        on_ready()
                        on_ready = None
                    if isinstance(ev, RunFinished):
                        status = ev.result.exit_status
                        if ev.result.is_error and settings.output_format != "text":
                            sys.stderr.write(f"agentcli: {ev.result.error_message} [{ev.result.error_code}]\n")
    except BrokenPipeError:
        # stdout's reader left (`| head -1`): stop the run as SIGPIPE would, quietly, after the run has closed
        # its session and provider (below)
        silence_stdout()
        return STDOUT_CLOSED
    finally:
        with contextlib.suppress(BrokenPipeError):
            printer.flush()
        await driver.aclose()  # also stops the sandbox's allowlist proxy, before the process may end by os._exit
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
