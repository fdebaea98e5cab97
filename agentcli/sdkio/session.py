"""The stream-json session: one agent, one turn per `user` line, until stdin closes.

    agentcli --output-format stream-json --input-format stream-json [--permission-prompt-tool stdio] …

Start: the SDK's pipes are moved off fd 0 and 1 (close-on-exec copies), so nothing agentcli starts can read the
SDK's input or write to its output; fd 0 becomes /dev/null and fd 1 stderr. Then the agent is built, the control
handlers are registered (agentcli.sdkio.handlers) and stdin is read. Each user message runs as a turn of the
session's driver (agentcli.driver): start-up notices come after the first init line, and `interrupt` stops the
turn as Esc does (the transcript is repaired and a result line still ends the turn). Messages that arrive during
a turn wait their turn. At EOF the running turn (and any queued) finishes, then the session closes.

Exit status: 0, or the last turn's when it failed (not when it was interrupted: the caller asked for that); 2 when
a stdin line was not valid; 128+N when a signal ended the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TextIO

from agentcli.core.events import AgentEvent, RunFinished, RunResult, TurnStarted
from agentcli.driver import Driver
from agentcli.driver.results import failed_result
from agentcli.errors import UsageError
from agentcli.llm.messages import TextBlock
from agentcli.output.printers import StreamJsonPrinter
from agentcli.sdkio.channel import ControlChannel, UserLine, open_reader
from agentcli.sdkio.inbound import BadInput, user_message

if TYPE_CHECKING:
    from agentcli.assembly.runtime import Built
    from agentcli.core.hooks import Hooks
    from agentcli.core.loop import Agent
    from agentcli.core.permissions import Approver
    from agentcli.settings.config import Settings


@dataclass(frozen=True, slots=True)
class Pipes:
    """The SDK's pipes, on private close-on-exec descriptors."""

    stdin_fd: int
    out: TextIO


def take_pipes() -> Pipes:
    """Move stdin/stdout to private descriptors; fd 0 reads /dev/null, fd 1 writes to stderr."""
    try:
        stdin_fd = os.dup(0)
        out_fd = os.dup(1)
    except OSError as err:
        raise UsageError(f"--input-format stream-json needs stdin and stdout open ({err.strerror})") from err
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return Pipes(stdin_fd, os.fdopen(out_fd, "w", encoding="utf-8", errors="replace", newline="\n"))


def run_stream_session(settings: Settings, permission_prompt_tool: str | None, *, replay: bool = False) -> int:
    pipes = take_pipes()
    session = StreamSession(settings, pipes, permission_prompt_tool, replay=replay)
    try:
        return asyncio.run(session.main())
    except BrokenPipeError:
        return 141  # the SDK went away


class StreamSession:
    def __init__(self, settings: Settings, pipes: Pipes, permission_prompt_tool: str | None, *,
                 replay: bool = False) -> None:
        self.settings = settings
        self.replay = replay
        self.pipes = pipes
        self.out = pipes.out
        self.printer = StreamJsonPrinter(self.out, settings.include_partial_messages, settings.hooks.include_events)
        self.channel = ControlChannel(self._write, self._problem)
        self.driver = Driver(settings, self._approver(permission_prompt_tool), sdk_request=self.channel.request)
        self.current: asyncio.Task[RunResult | None] | None = None
        self.interrupted = False
        self.bad_lines = 0
        self.deferred: list[Any] = []  # work to do between turns (a model switch), as coroutine functions
        self.start_build = asyncio.Event()  # initialize (or another request) arrived: build now
        self.init_agents: tuple[Any, ...] = ()  # subagents it defines, for the build
        self.init_callbacks: list[Any] = []  # its hooks registered in code (agentcli.sdkio.hooks.Callback)
        self.ready = asyncio.Event()  # the agent is built
        self.seen_uuids: set[str] = set()  # `uuid`s of the user lines taken so far
        self.building = False  # the build has begun: an initialize now comes too late to shape it
        self._main: asyncio.Task[Any] | None = None

    def _approver(self, prompt_tool: str | None) -> Approver:
        from agentcli.core.permissions import DontAskGate
        from agentcli.headless import HeadlessApprover
        from agentcli.sdkio.approver import StdioApprover

        # The gate lets set_permission_mode enter and leave dontAsk (agentcli.core.permissions.DontAskGate).
        return DontAskGate(StdioApprover(self.channel, self.interrupt) if prompt_tool == "stdio"
                           else HeadlessApprover())

    @property
    def built(self) -> Built | None:
        return self.driver.built

    @property
    def agent(self) -> Agent:
        return self.driver.agent

    @property
    def turn_running(self) -> bool:
        return self.current is not None

    def _write(self, line: str) -> None:
        self.out.write(line)
        self.out.flush()

    def _problem(self, text: str, bad: bool = True) -> None:
        """A stdin line that was skipped; `bad` ones (not valid) make the exit status 2."""
        self.bad_lines += bad
        self.warn(text, "bad_input" if bad else "ignored_input")

    def warn(self, text: str, code: str) -> None:
        """Shown on stderr and, as a system line, to the SDK."""
        sys.stderr.write(f"agentcli: {text} [{code}]\n")
        sys.stderr.flush()
        self.channel.send({"type": "system", "subtype": "notice", "level": "error", "text": text, "code": code,
                           "session_id": self.built.agent.session_id if self.built else "",
                           "uuid": _uuid()})

    async def main(self) -> int:
        """Serve until stdin closes. A stop signal ends the session: the turn under way still gets its result
        line (the driver's), then the exit status is 128+N."""
        self._main = main = asyncio.current_task()
        assert main is not None
        try:
            with self.driver.signals(self._signalled):
                return await self._serve()
        except asyncio.CancelledError:
            if self.driver.signal is None:
                raise
            main.uncancel()
            return 128 + self.driver.signal

    def _signalled(self, sig: int) -> None:
        """Nothing the driver runs to stop (waiting for stdin, between turns): stop waiting."""
        if not self.driver.running and self._main is not None:
            self._main.cancel()

    async def _serve(self) -> int:
        """Read stdin from the start: the SDK's `initialize` (its subagents shape the agent) comes before the
        build, which waits for it or for the first user line (a caller driving agentcli by hand may not send
        one); requests that need the agent wait for `ready`."""
        from agentcli.sdkio.handlers import register

        register(self)
        reader = asyncio.ensure_future(self.channel.read(await open_reader(self.pipes.stdin_fd)))
        first = asyncio.ensure_future(self.channel.inbox.get())
        try:
            seen = asyncio.ensure_future(self.start_build.wait())
            await asyncio.wait({first, seen}, return_when=asyncio.FIRST_COMPLETED)
            seen.cancel()
            if "initialize" in self.channel.received:  # read before the user line, not yet handled: it comes first
                await self.start_build.wait()
            if first.done() and first.result() is None and not self.start_build.is_set():
                return 0  # stdin closed before anything was asked: nothing to build
            self.building = True
            status = await self._build()
            if status is not None:
                return status
            self.ready.set()
            return await self._turns(first)
        finally:
            first.cancel()
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
            await self.channel.aclose()
            with contextlib.suppress(BrokenPipeError, ValueError):
                self.out.flush()
            await self.driver.aclose()  # it stops its sandbox's proxy too

    async def _build(self) -> int | None:
        """Build the agent, with what `initialize` brought; on failure print the failed result and return the
        exit status."""
        if self.init_agents:
            self.driver.settings = replace(self.settings, agents=(*self.settings.agents, *self.init_agents))
        if self.init_callbacks:
            self.driver.hooks_in_code = self._hooks_in_code()
        failed = await self.driver.start()
        if failed is not None:
            self.printer.feed(RunFinished(failed))
            sys.stderr.write(f"agentcli: {failed.error_message} [{failed.error_code}]\n")
            return failed.exit_status
        writer = self.driver.built.session.writer if self.driver.built is not None else None
        self.printer.record_id = (lambda: writer.leaf_id) if writer is not None else None
        return None

    def _hooks_in_code(self) -> Callable[[Hooks | None], Hooks]:
        """The SDK's callbacks beside the configured hooks (the transcript path is known once the session is)."""
        from agentcli.sdkio.hooks import SdkHooks

        def wrap(inner: Hooks | None) -> Hooks:
            return SdkHooks(self.channel, self.init_callbacks, inner, str(self.settings.cwd), self._transcript)

        return wrap

    def _transcript(self) -> str | None:
        writer = self.built.session.writer if self.built is not None else None
        return str(writer.path) if writer is not None else None

    async def _turns(self, first: asyncio.Future[UserLine | None]) -> int:
        """One turn per user line until EOF (or a stop signal); the exit status."""
        last: tuple[RunResult | None, bool] = (None, False)  # the last turn's result, and whether interrupted
        item = await first
        while item is not None:
            last = await self._one(item) or last
            if self.driver.signal is not None:
                return 128 + self.driver.signal
            item = await self.channel.inbox.get()
        result, interrupted = last
        if self.bad_lines:
            return 2
        if result is None or not result.is_error or interrupted:
            return 0
        return result.exit_status

    async def _one(self, item: UserLine) -> tuple[RunResult | None, bool] | None:
        uid = item.data.get("uuid")
        if isinstance(uid, str) and uid:
            if uid in self.seen_uuids:  # a frame sent twice (a retrying caller) runs once, as in Claude Code
                self._problem(f"stdin line {item.line_no}: user message {uid} was already received; skipped",
                              bad=False)
                return None
            self.seen_uuids.add(uid)
        try:
            message = user_message(item.data, item.line_no)
        except BadInput as err:
            self._problem(err.message)
            # one result per user line, so a caller waiting for this turn's result is not left waiting
            self.printer.feed(RunFinished(failed_result(self.agent.session_id, err.code, err.message,
                                                        err.exit_status)))
            return None
        for work in self.deferred:
            await work()
        self.deferred.clear()
        self.interrupted = False
        # `client_composed` (the SDK's verbatim_prompts): text assembled from others' content is sent as written,
        # never dispatched as a command, as Claude Code does from the version init claims (schema.CLAUDE_CODE_PROTOCOL)
        composed = item.data.get("client_composed") is True
        command = message.text.strip() if not composed and all(isinstance(b, TextBlock) for b in message.content) \
            else ""
        if command.split(" ")[0] == "/compact":
            events = self.driver.compact(command[len("/compact"):].strip() or None)
        else:
            events = self.driver.run(message, as_written=composed)
        self.current = asyncio.ensure_future(self._turn(events, item.data["message"]))
        try:
            return await self.current, self.interrupted
        finally:
            self.current = None

    def interrupt(self) -> bool:
        """Stop the running turn (the `interrupt` request, or a `can_use_tool` answer with interrupt: true)."""
        if self.current is None or self.current.done():
            return False
        stopped = self.driver.interrupt()
        self.interrupted = self.interrupted or stopped
        return stopped

    async def _turn(self, events: AsyncGenerator[AgentEvent, None], prompt: dict[str, Any]) -> RunResult | None:
        """Print the turn's events; its result (the driver always ends a turn with one)."""
        result: RunResult | None = None
        async with aclosing(events) as stream:
            async for ev in stream:
                self._feed(ev, prompt)
                if isinstance(ev, RunFinished):
                    result = ev.result
        return result

    def _feed(self, ev: AgentEvent, prompt: dict[str, Any]) -> None:
        self.printer.feed(ev)
        if self.replay and type(ev) is TurnStarted and ev.turn == 1:
            self._replay(prompt)

    def _replay(self, prompt: dict[str, Any]) -> None:
        """`--replay-user-messages`: the prompt, as stored (at the first turn the prompt is the session's newest
        record, so its id is the one `rewind_files` takes)."""
        record = self.printer.record_id() if self.printer.record_id is not None else None
        self.channel.send({"type": "user", "message": prompt, "parent_tool_use_id": None,
                           "session_id": self.agent.session_id, "uuid": record or _uuid(), "isReplay": True})


def _uuid() -> str:
    from agentcli.ids import new_uuid

    return new_uuid()
