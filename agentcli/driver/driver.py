"""`Driver`: one session's agent, run turn by turn for a front end (API in agentcli.driver's docstring)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from agentcli.core.events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    RunFinished,
    RunResult,
    SessionStarted,
    TurnStarted,
)
from agentcli.driver.results import Stop, Tally, compacted_result, failed_result, stop_for, stopped_result
from agentcli.errors import AgentCliError

if TYPE_CHECKING:
    from agentcli.assembly.runtime import Built
    from agentcli.core.hooks import Hooks
    from agentcli.core.loop import Agent
    from agentcli.core.permissions import Approver
    from agentcli.llm.messages import Message
    from agentcli.mcp.sdk_transport import SdkRequest
    from agentcli.settings.config import Settings
    from agentcli.tools.base import FileAccess

# A signal ends the run the way an error does: every process it started is killed (cancellation reaches the
# tools, then the loop's shutdown stops background shells) and a result is still given.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

T = TypeVar("T")

BUSY = "a turn is already running in this session: wait for its result, or interrupt it"


class Driver:
    """One session for a front end: `start`, `run` a prompt (events, always ending in one `RunFinished`),
    `interrupt`, `aclose`. Never prints; the front end consumes the events."""

    def __init__(self, settings: Settings, approver: Approver, *,
                 hooks_in_code: Callable[[Hooks | None], Hooks] | None = None,
                 sdk_request: SdkRequest | None = None, files: FileAccess | None = None) -> None:
        self.settings = settings
        self.files = files  # where the file tools' text goes (an editor's over ACP); None: the disk
        self.approver = approver
        self.hooks_in_code = hooks_in_code
        self.sdk_request = sdk_request
        self.built: Built | None = None
        self.failure: RunResult | None = None  # the start failed: every run ends with this
        self.signal: int | None = None  # a stop signal came: the session is ending (exit status 128+N)
        self.notices: list[Notice] = []  # the start-up's, given after the next SessionStarted
        self._task: asyncio.Task[object] | None = None  # the task running a turn (or the start) now
        self._waiting = False  # that task is waiting inside the driver (the agent, the build): cancel it there
        self._stop: Stop | None = None  # a stop was asked for the turn under way
        self._cancelled = False  # and it cancelled the turn's task: that cancellation is ours to take

    @property
    def agent(self) -> Agent:
        assert self.built is not None, "Driver.start() first"
        return self.built.agent

    @property
    def running(self) -> bool:
        """A turn (or the start) is under way."""
        return self._task is not None

    # ---- start and end ------------------------------------------------------------------------------------

    async def start(self) -> RunResult | None:
        """Build the session's agent (once; later calls return at once). None when it is ready, else the failed
        result (a bad setting, no provider, a signal during start-up), which every `run` then ends with."""
        if self.built is not None or self.failure is not None:
            return self.failure
        from agentcli.assembly.runtime import build

        with self._turn():
            try:
                built = await self._waited(lambda: build(self.settings, self.approver, self.hooks_in_code,
                                                         sdk_request=self.sdk_request, files=self.files))
            except AgentCliError as err:
                self.failure = failed_result(self.settings.session.session_id or "", err.code, err.one_line(),
                                             err.exit_status)
                return self.failure
            if built is None:  # stopped while building: a signal ends the session, an interrupt only this run
                assert self._stop is not None
                stopped = failed_result(self.settings.session.session_id or "", self._stop.code, self._stop.message,
                                        self._stop.exit_status)
                if self.signal is not None:
                    self.failure = stopped
                return stopped
        self.adopt(built)
        return None

    def adopt(self, built: Built) -> None:
        """Drive `built` (an agent built elsewhere: the REPL's background build, /clear, /resume, /fork). Its
        start-up notices (settings not trusted, no sandbox, hooks dropped …) come after the next SessionStarted,
        unless the front end takes them first (`take_notices`)."""
        self.built, self.failure = built, None
        self.notices = ([Notice("warning", t) for t in built.session.notices]
                        + [Notice("info", t) for t in built.info])

    def take_notices(self) -> list[Notice]:
        """The start-up notices not given yet, for a front end that shows them before the first prompt."""
        notices, self.notices = self.notices, []
        return notices

    async def aclose(self, reason: str = "other") -> None:
        """End the session: its agent's background shells, SessionEnd hooks (`reason`), provider, MCP servers,
        sandbox proxy and session file."""
        built, self.built = self.built, None
        if built is not None:
            await built.agent.aclose(reason)

    # ---- turns --------------------------------------------------------------------------------------------

    def run(self, prompt: str | Message, *, as_written: bool = False) -> AsyncGenerator[AgentEvent, None]:
        """Run one prompt (starting the session first if need be): the agent's events, the start-up notices right
        after the first SessionStarted, and exactly one `RunFinished` last: the loop's own, the failed start's,
        or the stopped turn's. Consume it with `contextlib.aclosing`, so a front end that stops reading closes
        the run at once. `as_written`: never run as a command (Agent.run)."""
        return self._drive(lambda agent: agent.run(prompt, as_written=as_written), None)

    def compact(self, focus: str | None = None) -> AsyncGenerator[AgentEvent, None]:
        """`/compact [focus]` as a turn: the compaction's events, then a `RunFinished` (success, the failure, or
        the stopped result)."""
        return self._drive(lambda agent: agent.compact(focus), compacted_result)

    def interrupt(self, sig: int | None = None) -> bool:
        """Stop the turn under way (or the start): it ends with the stopped result, the transcript kept valid.
        `sig`: the stop signal that asks (then the session is ending: `signal` is set, and every later run ends
        at once). False when nothing was running."""
        if sig is not None and self.signal is None:
            self.signal = sig
        if self._task is None:
            return False
        if self._stop is None:
            self._stop = stop_for(sig)
            if self._waiting:
                self._cancelled = True
                self._task.cancel()
        return True

    @contextlib.contextmanager
    def signals(self, also: Callable[[int], None] | None = None) -> Iterator[None]:
        """While inside: SIGTERM, SIGINT and SIGHUP stop the session (the first one counts): the turn under way
        ends with its stopped result; then `also(sig)`, for what the front end does besides (stop reading)."""
        loop = asyncio.get_running_loop()

        def handle(sig: int) -> None:
            if self.signal is None:
                self.interrupt(sig)
                if also is not None:
                    also(sig)

        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, handle, sig)
        try:
            yield
        finally:
            for sig in STOP_SIGNALS:
                loop.remove_signal_handler(sig)

    async def _drive(self, events_of: Callable[[Agent], AsyncIterator[AgentEvent]],
                     success: Callable[[Tally, str, float], RunResult] | None) -> AsyncGenerator[AgentEvent, None]:
        """The one turn loop: the start, the events with the start-up notices, the turn's tally, and its stop."""
        if self._task is not None:  # one agent answers one prompt at a time
            session_id = self.built.agent.session_id if self.built is not None else ""
            yield RunFinished(failed_result(session_id, "usage", BUSY, 2))
            return
        failed = await self.start()
        if failed is not None:
            yield RunFinished(failed)
            return
        agent = self.agent
        tally = Tally(agent.total_cost_usd)
        failure: RunResult | None = None
        finished = False
        with self._turn():
            events = events_of(agent)
            try:
                # `_waited`'s steps, inline: this loop carries every delta of the stream
                while self._stop is None:
                    self._waiting = True
                    try:
                        ev = await events.__anext__()
                    except StopAsyncIteration:
                        break
                    except asyncio.CancelledError:
                        if not self._took_cancel():
                            raise
                        break
                    finally:
                        self._waiting = False
                    if self._cancelled:
                        await self._absorb()
                    kind = type(ev)
                    if kind is TurnStarted or kind is AssistantMessage:
                        tally.feed(ev)
                    elif kind is RunFinished:
                        finished = True
                    yield ev
                    if kind is SessionStarted and self.notices:
                        for notice in self.take_notices():
                            yield notice
                await self._absorb()
            except AgentCliError as err:  # a command the loop does not wrap in a result (compaction) failed
                failure = failed_result(agent.session_id, err.code, err.one_line(), err.exit_status)
            finally:
                with contextlib.suppress(Exception):  # a failed write (BrokenPipeError) closes the run now
                    await _aclose(events)
            if finished:
                return
            if failure is not None:
                yield RunFinished(failure)
            elif self._stop is not None:
                yield RunFinished(stopped_result(tally, agent.session_id, agent.total_cost_usd, self._stop))
            elif success is not None:
                yield RunFinished(success(tally, agent.session_id, agent.total_cost_usd))

    async def _waited(self, step: Callable[[], Awaitable[T]]) -> T | None:
        """`await step()` where a stop can reach it; None when the turn was stopped (before, or during it)."""
        if self._stop is None:
            self._waiting = True
            try:
                value = await step()
            except asyncio.CancelledError:
                if not self._took_cancel():
                    raise
                return None
            finally:
                self._waiting = False
            await self._absorb()
            return value
        await self._absorb()
        return None

    def _took_cancel(self) -> bool:
        """A CancelledError arrived: True when it was a stop's (then it is taken back), False when it is the
        front end's own cancellation, which goes on."""
        if self._stop is None or not self._cancelled:
            return False
        self._cancelled = False
        _uncancel()
        return True

    async def _absorb(self) -> None:
        """The cancel a stop asked for, when the step it was meant for ended without waiting again (the
        Approver itself said stop, then the loop had nothing left to wait for): taken here, at a yield of our
        own, so it cannot land in the front end or in the run's closing."""
        if not self._cancelled:
            return
        self._cancelled = False
        try:
            await asyncio.sleep(0)
        except asyncio.CancelledError:
            _uncancel()

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """The current task runs a turn (or the start); a signal that came before ends it at once."""
        outer = self._task
        self._task = asyncio.current_task()
        if outer is None:
            self._stop = stop_for(self.signal) if self.signal is not None else None
        try:
            yield
        finally:
            self._task = outer


def _uncancel() -> None:
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


async def _aclose(events: AsyncIterator[AgentEvent]) -> None:
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        await aclose()
