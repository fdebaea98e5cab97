"""Served sessions: one Driver each, the stream-json lines of its turns broadcast to every watcher, and its
permission questions held until one client answers (every watcher sees the question and the answer)."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.events import RunFinished
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.driver import Driver
from agentcli.ids import new_uuid
from agentcli.output.printers import StreamJsonPrinter
from agentcli.settings.config import Settings

Line = dict[str, Any]


class _Lines(io.StringIO):
    """The stream-json printer's output, cut into lines for the session's watchers."""

    def __init__(self, session: ServedSession) -> None:
        super().__init__()
        self.session = session

    def write(self, text: str) -> int:
        import json

        for line in text.splitlines():
            if line.strip():
                self.session.publish(json.loads(line))
        return len(text)


class HttpApprover:
    """Questions wait for a client's answer (`answer`); the SSE stream shows them as Claude Code's `can_use_tool`
    control requests, and their answers as `permission_resolved` lines."""

    interactive = True

    def __init__(self) -> None:
        self.session: ServedSession | None = None
        self.pending: dict[str, tuple[ApprovalRequest, asyncio.Future[Approval]]] = {}

    async def approve(self, request: ApprovalRequest) -> Approval:
        assert self.session is not None
        rid = new_uuid()
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        self.pending[rid] = (request, future)
        self.session.publish({"type": "control_request", "request_id": rid, "request": {
            "subtype": "can_use_tool", "tool_name": request.tool_name, "input": request.input,
            "tool_use_id": request.tool_use_id, "kind": request.kind, "plan": request.plan,
            "agent": request.agent}})
        try:
            return await future
        finally:
            self.pending.pop(rid, None)

    def answer(self, rid: str, approval: Approval) -> bool:
        entry = self.pending.get(rid)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(approval)
        assert self.session is not None
        self.session.publish({"type": "system", "subtype": "permission_resolved", "request_id": rid,
                              "behavior": approval.behavior, "session_id": self.session.id, "uuid": new_uuid()})
        return True


WATCH_BACKLOG = 10_000  # lines a watcher may fall behind before it is let go (memory stays bounded)


class Watch(asyncio.Queue[Line | None]):
    """One watcher's lines. `lagged`: it fell behind by WATCH_BACKLOG lines and was let go; it reads what it
    has, then its stream ends with a notice saying why."""

    def __init__(self) -> None:
        super().__init__(maxsize=WATCH_BACKLOG)
        self.lagged = False


@dataclass
class ServedSession:
    id: str
    driver: Driver
    approver: HttpApprover
    watchers: set[Watch] = field(default_factory=set)
    turn: asyncio.Task[None] | None = None
    exit_status: int = 0  # the last run's (on its result line: a thin client exits with it, as `-p` does)

    def publish(self, line: Line) -> None:
        if line.get("type") == "result":
            line = {**line, "exit_status": self.exit_status}
        for queue in list(self.watchers):
            try:
                queue.put_nowait(line)
            except asyncio.QueueFull:
                queue.lagged = True
                self.watchers.discard(queue)

    @contextlib.contextmanager
    def watch(self) -> Iterator[Watch]:
        queue = Watch()
        self.watchers.add(queue)
        try:
            yield queue
        finally:
            self.watchers.discard(queue)

    def prompt(self, text: str) -> bool:
        """Start a turn in the background (False: one is running)."""
        if self.turn is not None and not self.turn.done():
            return False
        self.turn = asyncio.create_task(self._run(text))
        return True

    async def _run(self, text: str) -> None:
        printer = StreamJsonPrinter(_Lines(self))
        async with contextlib.aclosing(self.driver.run(text)) as events:
            async for event in events:
                if isinstance(event, RunFinished):
                    self.exit_status = event.result.exit_status
                printer.feed(event)
                if isinstance(event, RunFinished):
                    break


    async def aclose(self) -> None:
        if self.turn is not None and not self.turn.done():
            self.driver.interrupt()
            with contextlib.suppress(BaseException):
                await self.turn
        await self.driver.aclose()
        for queue in self.watchers:
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)
            queue.lagged = True  # a full one ends once drained


class Hub:
    """Every session this server holds, by id."""

    def __init__(self, flags: dict[str, Any]) -> None:
        self.flags = flags
        self.sessions: dict[str, ServedSession] = {}
        self.ending: set[asyncio.Task[None]] = set()  # sessions being closed by `end`

    def end(self, sid: str) -> None:
        """Let the session go at once (no client can reach it after this) and close it in the background: its
        turn stopped if one runs, SessionEnd hooks, provider, file. The server's shutdown waits for it."""
        session = self.sessions.pop(sid, None)
        if session is not None:
            task = asyncio.get_running_loop().create_task(session.aclose())
            self.ending.add(task)
            task.add_done_callback(self.ending.discard)

    async def open(self, settings: Settings) -> ServedSession:
        approver = HttpApprover()
        driver = Driver(settings, approver)
        failed = await driver.start()
        if failed is not None:
            from agentcli.errors import AgentCliError

            raise AgentCliError(failed.error_message or "the session could not start", code=failed.error_code)
        sid = driver.agent.session_id
        session = ServedSession(sid, driver, approver)
        approver.session = session
        self.sessions[sid] = session
        return session

    async def aclose(self) -> None:
        while self.sessions:  # one at a time off the table: a second caller finds only what is left
            _, session = self.sessions.popitem()
            await session.aclose()
        if self.ending:
            await asyncio.gather(*self.ending, return_exceptions=True)
