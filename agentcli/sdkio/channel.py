"""The control channel: JSON lines in from the SDK, control lines out, requests matched to responses by id.

    channel = ControlChannel(write=printer_out_line)
    channel.handle("interrupt", on_interrupt)           # async (request) -> response dict | None
    reader = asyncio.create_task(channel.read(stream))  # user lines go to channel.inbox; None marks EOF
    answer = await channel.request("can_use_tool", {"tool_name": "Bash", …}, timeout=None)

A request the SDK sends is answered by its handler (its return value is the `response` object); a handler that
raises, or a subtype nobody handles, gets an error response: never a crash. A request agentcli sends waits for the
matching `control_response`; on timeout or cancellation a `control_cancel_request` tells the SDK to stop working
on it. A line that is not valid (not JSON, too long, a malformed request) is reported through
`on_problem(text, True)` and skipped; a line of a type agentcli does not know (a newer SDK's) or a response that
came too late, through `on_problem(text, False)`: worth a warning, not a failed session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agentcli.errors import AgentCliError

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]
MAX_LINE = 64 << 20  # one stdin line (a user message with images can be large); longer ones are refused


class ControlError(AgentCliError):
    """A control request failed: the SDK answered with an error, did not answer in time, or stdin closed."""

    code = "control"


@dataclass(frozen=True, slots=True)
class UserLine:
    """A `user` line from stdin: the raw object (agentcli.sdkio.inbound turns it into a Message) and its line
    number, for errors."""

    data: dict[str, Any]
    line_no: int


class ControlChannel:
    """One per session. `write` puts one complete line on the SDK's stdout (it must not be interleaved with other
    writers: the session gives the printer and the channel the same stream, written from one thread)."""

    def __init__(self, write: Callable[[str], None],
                 on_problem: Callable[[str, bool], None] | None = None) -> None:
        self._write = write
        self.on_problem = on_problem or (lambda text, bad: None)
        self.handlers: dict[str, Handler] = {}
        self.inbox: asyncio.Queue[UserLine | None] = asyncio.Queue()
        self.closed = False  # stdin reached EOF: no more requests can be answered
        self.problems = 0  # lines that were not valid
        self.sdk_mcp_servers: tuple[str, ...] = ()  # declared by the SDK (set by the initialize handler)
        self.received: set[str] = set()  # subtypes of the requests read so far (in stdin order, before answering)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._serving: dict[str, asyncio.Task[None]] = {}
        self._counter = 0

    # ---- out ----------------------------------------------------------------------------------------------

    def send(self, obj: dict[str, Any]) -> None:
        """Write one protocol line (a control line, or any stdout message)."""
        self._write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")

    def handle(self, subtype: str, handler: Handler) -> None:
        """Answer the SDK's `subtype` requests with `handler` (a later registration replaces an earlier one)."""
        self.handlers[subtype] = handler

    async def request(self, subtype: str, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Ask the SDK; returns its `response` object. Raises ControlError (error answer, timeout, stdin closed)."""
        if self.closed:
            raise ControlError(f"cannot ask the SDK ({subtype}): its input is closed")
        self._counter += 1
        request_id = f"agentcli_{self._counter}_{os.urandom(4).hex()}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.send({"type": "control_request", "request_id": request_id, "request": {**payload, "subtype": subtype}})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self._cancel_remote(request_id)
            raise ControlError(f"the SDK did not answer {subtype} within {timeout:g} s") from None
        except asyncio.CancelledError:
            self._cancel_remote(request_id)
            raise
        finally:
            self._pending.pop(request_id, None)

    def _cancel_remote(self, request_id: str) -> None:
        if not self.closed:
            with contextlib.suppress(OSError, ValueError):
                self.send({"type": "control_cancel_request", "request_id": request_id})

    # ---- in -----------------------------------------------------------------------------------------------

    async def read(self, stream: asyncio.StreamReader) -> None:
        """Read stdin until EOF, routing each line; then fail what is still waiting and put None in the inbox."""
        line_no = 0
        try:
            while True:
                try:
                    raw = await stream.readuntil(b"\n")
                except asyncio.IncompleteReadError as end:
                    raw = end.partial  # the last line may lack its newline
                    if raw.strip():
                        line_no += 1
                        self.route(raw, line_no)
                    return
                except asyncio.LimitOverrunError as err:
                    line_no += 1
                    await _skip_line(stream, err.consumed)
                    self._problem(f"stdin line {line_no} is longer than {MAX_LINE >> 20} MiB; it was skipped")
                    continue
                line_no += 1
                self.route(raw, line_no)
        finally:
            self._close()

    def route(self, raw: bytes, line_no: int) -> None:
        """One stdin line: a user message, a control request, or a response to one of ours."""
        if not raw.strip():
            return
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as err:
            self._problem(f"stdin line {line_no} is not valid JSON ({err}); it was skipped")
            return
        except RecursionError:  # nesting deeper than the parser's stack: refused like any malformed line
            self._problem(f"stdin line {line_no} is nested too deeply to read; it was skipped")
            return
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "user":
            self.inbox.put_nowait(UserLine(data, line_no))
        elif kind == "control_request":
            self._serve(data, line_no)
        elif kind == "control_response":
            self._resolve(data.get("response"), line_no)
        elif kind == "control_cancel_request":
            task = self._serving.pop(str(data.get("request_id")), None)
            if task is not None:
                task.cancel()
        elif kind in ("keep_alive", "update_environment_variables"):
            pass  # nothing to do: agentcli keeps no idle timer, and the environment is fixed at start
        else:
            self._problem(f"stdin line {line_no}: unknown message type {kind!r} (expected user, control_request, "
                          "control_response); it was skipped", bad=not isinstance(kind, str))

    def _serve(self, data: dict[str, Any], line_no: int) -> None:
        request_id, request = data.get("request_id"), data.get("request")
        if not isinstance(request_id, str) or not isinstance(request, dict):
            self._problem(f"stdin line {line_no}: a control_request needs request_id and a request object")
            return
        self.received.add(str(request.get("subtype")))
        task = asyncio.ensure_future(self._answer(request_id, request))
        self._serving[request_id] = task
        task.add_done_callback(lambda _t: self._serving.pop(request_id, None))

    async def _answer(self, request_id: str, request: dict[str, Any]) -> None:
        subtype = request.get("subtype")
        handler = self.handlers.get(subtype) if isinstance(subtype, str) else None
        try:
            if handler is None:
                raise ControlError(f"unsupported control request subtype: {subtype!r}")
            response = await handler(request)
        except asyncio.CancelledError:
            return  # the SDK cancelled it: it expects no answer
        except Exception as err:  # every failure is an answer, never a crash of the session
            from agentcli.redact import redact

            # one line, and no secret's shape: an exception's text may quote a URL with its password
            message = err.one_line() if isinstance(err, AgentCliError) else \
                " ".join(redact(f"{subtype} failed: {err or type(err).__name__}").split())[:1000]
            self.send({"type": "control_response",
                       "response": {"subtype": "error", "request_id": request_id, "error": message}})
            return
        self.send({"type": "control_response",
                   "response": {"subtype": "success", "request_id": request_id, "response": response or {}}})

    def _resolve(self, response: Any, line_no: int) -> None:
        request_id = response.get("request_id") if isinstance(response, dict) else None
        future = self._pending.get(request_id) if isinstance(request_id, str) else None
        if future is None or future.done():
            self._problem(f"stdin line {line_no}: a control_response for no pending request ({request_id!r})",
                          bad=False)
            return
        assert isinstance(response, dict)
        if response.get("subtype") == "error":
            future.set_exception(ControlError(f"the SDK answered with an error: {response.get('error')}"))
            return
        body = response.get("response")
        future.set_result(body if isinstance(body, dict) else {})

    def _problem(self, text: str, bad: bool = True) -> None:
        self.problems += bad
        self.on_problem(text, bad)

    def _close(self) -> None:
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ControlError("the SDK closed agentcli's input before answering"))
        self.inbox.put_nowait(None)

    async def aclose(self) -> None:
        """Stop answering: requests still being served are cancelled."""
        for task in list(self._serving.values()):
            task.cancel()
        for task in list(self._serving.values()):
            with contextlib.suppress(BaseException):
                await task


async def _skip_line(stream: asyncio.StreamReader, consumed: int) -> None:
    """Drop the rest of an over-long line, chunk by chunk."""
    await stream.readexactly(consumed)
    while True:
        try:
            await stream.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as err:
            await stream.readexactly(err.consumed)
        except asyncio.IncompleteReadError:
            return


async def open_reader(fd: int) -> asyncio.StreamReader:
    """An asyncio reader over file descriptor `fd` (a pipe or a file)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    pipe = os.fdopen(fd, "rb", buffering=0, closefd=False)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except ValueError:
        # A regular file (`< messages.jsonl`) cannot be polled: read it whole, it is already all there.
        reader.feed_data(pipe.read())
        reader.feed_eof()
    return reader
