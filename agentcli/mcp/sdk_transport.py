"""The transport of an in-process SDK MCP server (`"type": "sdk"`): a server that lives inside the Claude Agent
SDK application driving agentcli, reached over the SDK's control channel.

The `mcp` library's client session runs unchanged over a pair of memory streams; each JSON-RPC message it sends
is carried as a `mcp_message` control request (`{"server_name", "message"}`) and the SDK's `mcp_response` comes
back as the answer. The channel is a plain async callable (`SdkRequest`), so this module knows nothing of how
control requests travel.

The other end is the SDK application's code, so its replies are checked, not believed: a reply that is not a
JSON-RPC response, answers another request's id, or is larger than `MAX_REPLY_CHARS` becomes a JSON-RPC error
for the request that was waiting, which the connection turns into an error the model reads. Nothing the SDK
sends can reach the client session except as the answer to a request the session made.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import INTERNAL_ERROR

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
SdkRequest = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""`request(subtype, payload) -> response`: one control request to the SDK and the `response` of its
`control_response` (raises when the SDK answers with an error or the channel closes)."""

MAX_REPLY_CHARS = 16 * 1024 * 1024  # an image or two as base64 fit; a reply meant to exhaust memory does not
MAX_ERROR_CHARS = 300


class SdkReplyError(Exception):
    """An SDK reply that cannot be the answer to the request it came back for."""


@asynccontextmanager
async def sdk_transport(server_name: str, request: SdkRequest) -> AsyncIterator[Streams]:
    """An un-entered `mcp` transport whose messages travel as `mcp_message` control requests."""
    to_session, from_carrier = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    to_carrier, from_session = anyio.create_memory_object_stream[SessionMessage](16)
    carrier = _Carrier(server_name, request, to_session)
    async with to_session, from_carrier, to_carrier, from_session, anyio.create_task_group() as tg:
        tg.start_soon(carrier.pump, from_session, tg)
        try:
            yield from_carrier, to_carrier
        finally:
            tg.cancel_scope.cancel()


class _Carrier:
    """Sends each message of the client session to the SDK, one task per message (tool calls run side by
    side, as they would on a stdio server), and hands each checked answer back to the session."""

    def __init__(self, server_name: str, request: SdkRequest,
                 to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        self.server_name = server_name
        self.request = request
        self.to_session = to_session
        self.waiting: dict[types.RequestId, anyio.CancelScope] = {}  # requests whose answer is awaited

    async def pump(self, from_session: MemoryObjectReceiveStream[SessionMessage],
                   tg: anyio.abc.TaskGroup) -> None:
        async for item in from_session:
            tg.start_soon(self.carry, item.message)
        # The session closed its side: end ours so its reader stops too.
        await self.to_session.aclose()

    async def carry(self, message: types.JSONRPCMessage) -> None:
        payload = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        waiting = message.id if isinstance(message, types.JSONRPCRequest) else None
        self._given_up(payload)
        scope = anyio.CancelScope()
        if waiting is not None:
            self.waiting[waiting] = scope
        try:
            with scope:
                response = await self.request("mcp_message", {"server_name": self.server_name, "message": payload})
            if waiting is None or scope.cancelled_caught:
                return  # a notification (or our answer to the server), or a request the session gave up on
            answer: types.JSONRPCMessage = check_reply(response, waiting)
        except Exception as err:
            if waiting is None:
                return
            answer = types.JSONRPCError(jsonrpc="2.0", id=waiting,
                                        error=types.ErrorData(code=INTERNAL_ERROR, message=one_line(err)))
        finally:
            if waiting is not None:
                self.waiting.pop(waiting, None)
        # A closed stream: the session is closing and nobody waits for this answer any more.
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.to_session.send(SessionMessage(answer))


    def _given_up(self, payload: dict[str, Any]) -> None:
        """The session cancels a request it stopped waiting for (a tool call's timeout, an interrupt): the SDK is
        told so, and our wait for its answer ends too (its control request is cancelled), so an SDK server
        that never answers holds nothing here."""
        if payload.get("method") != "notifications/cancelled":
            return
        params = payload.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if isinstance(request_id, int | str) and request_id in self.waiting:
            self.waiting[request_id].cancel()


def check_reply(response: Any, request_id: types.RequestId) -> types.JSONRPCResponse | types.JSONRPCError:
    """The SDK's `{"mcp_response": …}` → the JSON-RPC answer to `request_id`, or SdkReplyError saying why not."""
    if not isinstance(response, dict) or "mcp_response" not in response:
        raise SdkReplyError("the SDK's reply carried no mcp_response")
    raw = response["mcp_response"]
    if not isinstance(raw, dict):
        raise SdkReplyError("the SDK's mcp_response is not a JSON-RPC object")
    try:
        size = len(json.dumps(raw, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as err:
        raise SdkReplyError("the SDK's mcp_response is not JSON") from err
    if size > MAX_REPLY_CHARS:
        raise SdkReplyError(f"the SDK's reply is too large ({size:,} characters; at most {MAX_REPLY_CHARS:,})")
    try:
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValueError as err:
        raise SdkReplyError("the SDK's mcp_response is not a valid JSON-RPC message") from err
    if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
        raise SdkReplyError("the SDK answered a request with another request or a notification")
    if isinstance(message, types.JSONRPCError) and message.id is None:
        # Sent when the SDK could not tell which request it answers (JSON-RPC's `"id": null`): ours, here.
        return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=message.error)
    if message.id != request_id or type(message.id) is not type(request_id):
        raise SdkReplyError(f"the SDK answered request {request_id!r} with the id {message.id!r}")
    return message


def one_line(err: BaseException) -> str:
    text = " ".join((str(err) or type(err).__name__).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "…"
