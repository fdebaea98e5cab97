"""The stream-json session: one agent, one turn per `user` line, until stdin closes.

    agentcli --output-format stream-json --input-format stream-json [--permission-prompt-tool stdio] …

Start: the SDK's pipes are moved off fd 0 and 1 (close-on-exec copies), so nothing agentcli starts can read the
SDK's input or write to its output; fd 0 becomes /dev/null and fd 1 stderr. Then the agent is built, the control
handlers are registered (agentcli.sdkio.handlers) and stdin is read. Each user message runs as a task that
`interrupt` cancels (Esc's path: the transcript is repaired and a result line still ends the turn). Messages that
arrive during a turn wait their turn. At EOF the running turn (and any queued) finishes, then the session closes.

Exit status: 0, or the last turn's when it failed (not when it was interrupted: the caller asked for that); 2 when
a stdin line was not valid; 128+N when a signal ended the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

from agentcli.core.events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    RunFinished,
    RunResult,
    SessionStarted,
    TurnStarted,
)
from agentcli.core.loop import INTERRUPTED
from agentcli.errors import AgentCliError, UsageError
from agentcli.llm.messages import Message, TextBlock, Usage
from agentcli.output.printers import StreamJsonPrinter
from agentcli.output.schema import failed_result
from agentcli.sdkio.channel import ControlChannel, UserLine, open_reader
from agentcli.sdkio.inbound import BadInput, user_message

if TYPE_CHECKING:
    from agentcli.assembly.runtime import Built
    from agentcli.core.hooks import Hooks
    from agentcli.core.loop import Agent
    from agentcli.settings.config import Settings

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


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


@dataclass(slots=True)
class _Turn:
    """What the result of an interrupted turn reports (the loop's own result never comes)."""

    prompt: dict[str, Any]  # the user line's message, as received (what --replay-user-messages echoes)
    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_before: float = 0.0


class StreamSession:
    def __init__(self, settings: Settings, pipes: Pipes, permission_prompt_tool: str | None, *,
                 replay: bool = False) -> None:
        self.settings = settings
        self.replay = replay
        self.pipes = pipes
        self.out = pipes.out
        self.printer = StreamJsonPrinter(self.out, settings.include_partial_messages, settings.hooks.include_events)
        self.channel = ControlChannel(self._write, self._problem)
        self.prompt_tool = permission_prompt_tool
        self.built: Built | None = None
        self.current: asyncio.Task[RunResult | None] | None = None
        self.interrupted = False
        self.signal: int | None = None  # the signal that is ending the session
        self.bad_lines = 0
        self.pending_notices: list[Notice] = []
        self.deferred: list[Any] = []  # work to do between turns (a model switch), as coroutine functions
        self.start_build = asyncio.Event()  # initialize (or another request) arrived: build now
        self.init_agents: tuple[Any, ...] = ()  # subagents it defines, for the build
        self.init_callbacks: list[Any] = []  # its hooks registered in code (agentcli.sdkio.hooks.Callback)
        self.ready = asyncio.Event()  # the agent is built
        self.seen_uuids: set[str] = set()  # `uuid`s of the user lines taken so far
        self.building = False  # the build has begun: an initialize now comes too late to shape it

    @property
    def agent(self) -> Agent:
        assert self.built is not None
        return self.built.agent

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
        main = asyncio.current_task()
        assert main is not None
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self._stop, main, sig)
        try:
            return await self._serve()
        except asyncio.CancelledError:
            if self.signal is None:
                raise
            main.uncancel()
            return 128 + self.signal
        finally:
            for sig in STOP_SIGNALS:
                loop.remove_signal_handler(sig)

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
            if self.built is not None:
                await self.agent.aclose()  # it stops its sandbox's proxy too

    async def _build(self) -> int | None:
        """Build the agent; on failure print the failed result and return the exit status."""
        from agentcli.assembly.runtime import build
        from agentcli.core.permissions import DontAskGate
        from agentcli.output.headless import HeadlessApprover
        from agentcli.sdkio.approver import StdioApprover

        # The gate lets set_permission_mode enter and leave dontAsk (agentcli.core.permissions.DontAskGate).
        approver = DontAskGate(StdioApprover(self.channel, self.interrupt) if self.prompt_tool == "stdio"
                               else HeadlessApprover())
        settings = self.settings
        if self.init_agents:
            settings = replace(settings, agents=(*settings.agents, *self.init_agents))
        try:
            self.built = await build(settings, approver, self._hooks_in_code() if self.init_callbacks else None,
                                     sdk_request=self.channel.request)
        except AgentCliError as err:
            sid = self.settings.session.session_id or ""
            self.printer.feed(RunFinished(failed_result(sid, err.code, err.one_line(), err.exit_status)))
            sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
            return err.exit_status
        writer = self.built.session.writer
        self.printer.record_id = (lambda: writer.leaf_id) if writer is not None else None
        self.pending_notices = ([Notice("warning", t) for t in self.built.session.notices]
                                + [Notice("info", t) for t in self.built.info])
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
        """One turn per user line until EOF; the exit status."""
        last: tuple[RunResult | None, bool] = (None, False)  # the last turn's result, and whether interrupted
        item = await first
        while item is not None:
            last = await self._one(item) or last
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
        turn = self._compact(command[len("/compact"):].strip()) if command.split(" ")[0] == "/compact" \
            else self._turn(message, item.data["message"])
        self.current = asyncio.ensure_future(turn)
        try:
            return await self.current, self.interrupted
        finally:
            self.current = None

    def interrupt(self) -> bool:
        """Stop the running turn (the `interrupt` request, or a `can_use_tool` answer with interrupt: true)."""
        if self.current is None or self.current.done():
            return False
        self.interrupted = True
        self.current.cancel()
        return True

    async def _turn(self, message: Message, raw: dict[str, Any]) -> RunResult | None:
        seen = _Turn(raw, cost_before=self.agent.total_cost_usd)
        try:
            return await self._drive(message, seen)
        except asyncio.CancelledError:
            if self.signal is not None:  # the session ends; the turn still gets its result line, as with -p
                name = signal.Signals(self.signal).name
                code = "interrupted" if self.signal == signal.SIGINT else "terminated"
                self.printer.feed(RunFinished(self._stopped_result(seen, code, f"run stopped by {name}")))
                raise
            if not self.interrupted:
                raise
            result = self._stopped_result(seen, "interrupted", INTERRUPTED)
            self.printer.feed(RunFinished(result))
            return result

    async def _drive(self, message: Message, seen: _Turn) -> RunResult | None:
        result: RunResult | None = None
        events = self.agent.run(message)
        try:
            async for ev in events:
                self._feed(ev, seen)
                if isinstance(ev, RunFinished):
                    result = ev.result
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        return result

    def _feed(self, ev: AgentEvent, seen: _Turn) -> None:
        self.printer.feed(ev)
        if isinstance(ev, SessionStarted) and self.pending_notices:
            for notice in self.pending_notices:
                self.printer.feed(notice)
            self.pending_notices = []
        elif isinstance(ev, TurnStarted):
            seen.turns += 1
            if seen.turns == 1 and self.replay:
                self._replay(seen.prompt)
        elif isinstance(ev, AssistantMessage):
            seen.usage = seen.usage + ev.usage

    async def _compact(self, focus: str) -> RunResult:
        """`/compact [focus]`, as in Claude Code's SDK sessions: a compact_boundary line, then a result."""
        started, cost = time.monotonic(), self.agent.total_cost_usd
        try:
            async for ev in self.agent.compact(focus or None):
                self.printer.feed(ev)
        except AgentCliError as err:
            failed = failed_result(self.agent.session_id, err.code, err.one_line(), err.exit_status)
            self.printer.feed(RunFinished(failed))
            return failed
        result = RunResult(subtype="success", is_error=False, result="", session_id=self.agent.session_id,
                           num_turns=0, duration_ms=int((time.monotonic() - started) * 1000), duration_api_ms=0,
                           total_cost_usd=self.agent.total_cost_usd - cost, usage=Usage())
        self.printer.feed(RunFinished(result))
        return result

    def _replay(self, prompt: dict[str, Any]) -> None:
        """`--replay-user-messages`: the prompt, as stored (at the first turn the prompt is the session's newest
        record, so its id is the one `rewind_files` takes)."""
        record = self.printer.record_id() if self.printer.record_id is not None else None
        self.channel.send({"type": "user", "message": prompt, "parent_tool_use_id": None,
                           "session_id": self.agent.session_id, "uuid": record or _uuid(), "isReplay": True})

    def _stopped_result(self, seen: _Turn, code: str, text: str) -> RunResult:
        """Claude Code's shape for an interrupted turn: error_during_execution, is_error (exit status 0 here)."""
        return RunResult(
            subtype="error_during_execution", is_error=True, result=text, session_id=self.agent.session_id,
            num_turns=seen.turns, duration_ms=int((time.monotonic() - seen.started) * 1000), duration_api_ms=0,
            total_cost_usd=self.agent.total_cost_usd - seen.cost_before, usage=seen.usage,
            error_code=code, error_message=text, exit_status=130,
        )

    def _stop(self, task: asyncio.Task[Any], sig: int) -> None:
        if self.signal is None:
            self.signal = sig
            task.cancel()


def _uuid() -> str:
    from agentcli.ids import new_uuid

    return new_uuid()
