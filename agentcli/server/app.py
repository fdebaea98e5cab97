"""The HTTP API (Starlette): every path, the OpenAPI description included, needs the bearer token.

    POST /v1/sessions                      {"cwd": DIR, "resume": ID?} → {"session_id"}   (create or resume);
                                           with "prompt" (and "close"?) and `Accept: text/event-stream`: the
                                           session's first turn streamed as the prompt route streams it
                                           (`-p --attach`: one request)
    GET  /v1/sessions                      the sessions this server holds
    POST /v1/sessions/{id}/prompt          {"prompt": TEXT} → 202; 409 while a turn runs. With `Accept:
                                           text/event-stream`: 200, this turn's lines as SSE up to its result
                                           (`"close": true`: the session then ends)
    GET  /v1/sessions/{id}/events          SSE: the stream-json lines of the session's turns (any number of
                                           watchers), permission questions as `control_request` lines
    POST /v1/sessions/{id}/permissions/{request_id}   {"behavior": "allow"|"deny", "message"?}
    POST /v1/sessions/{id}/interrupt       stop the turn under way
    DELETE /v1/sessions/{id}               end the session (its file stays: resume it anywhere)
    GET  /v1/openapi.json                  this description
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agentcli.core.permissions import Approval
from agentcli.errors import AgentCliError
from agentcli.server.hub import Hub, ServedSession, Watch
from agentcli.server.token import matches

OPENAPI_PATH = "/v1/openapi.json"
LAGGED = {"type": "system", "subtype": "notice", "level": "error", "code": "watcher_lagged",
          "text": "this watcher fell too far behind and was let go: connect again (the session goes on)"}


class BearerAuth:
    """401 for any request without the token (constant-time compare), before routing."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
            scheme, _, given = header.partition(" ")
            if scheme.lower() != "bearer" or not matches(given.strip(), self.token):
                response = JSONResponse({"error": "unauthorized", "message": "a bearer token is required: "
                                         "Authorization: Bearer <token from agentcli serve>"}, status_code=401,
                                        headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise AgentCliError("the body must be a JSON object", code="usage")
    return data


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def session_of(request: Request) -> ServedSession | None:
    return _hub(request).sessions.get(request.path_params["sid"])


async def _session_and_body(request: Request) -> tuple[ServedSession, dict[str, Any]] | Response:
    """The session a request names and its JSON body, or the error answer (404, or 400 for a bad body)."""
    session = session_of(request)
    if session is None:
        return _error(404, "not_found", "no such session on this server")
    try:
        return session, await _body(request)
    except AgentCliError as err:
        return _error(400, err.code, err.one_line())


async def create(request: Request) -> Response:
    from agentcli.acp.settings import session_settings

    hub = _hub(request)
    try:
        body = await _body(request)
        cwd, resume = body.get("cwd"), body.get("resume")
        if not isinstance(cwd, str) or not (resume is None or isinstance(resume, str)):
            return _error(400, "usage", '{"cwd": "/abs/dir", "resume": "session id (optional)"}')
        asked = _asked(body, True) if "prompt" in body else None
        if isinstance(asked, Response):
            return asked
        if asked is not None and not _streamed(request):  # else nothing would tell the client its session
            return _error(400, "usage", "a prompt sent with the session needs Accept: text/event-stream")
        if resume is not None and resume in hub.sessions:  # held already: one writer per session file
            session, status = hub.sessions[resume], 200
        else:
            session, status = await hub.open(session_settings(cwd, hub.flags, None, resume=resume)), 201
    except AgentCliError as err:
        return _error(400, err.code, err.one_line())
    if asked is None:
        return JSONResponse({"session_id": session.id}, status_code=status)
    return _start(hub, session, *asked, streamed=True)


async def listing(request: Request) -> Response:
    return JSONResponse({"sessions": [{"session_id": s.id, "cwd": str(s.driver.settings.cwd),
                                       "running": s.turn is not None and not s.turn.done()}
                                      for s in _hub(request).sessions.values()]})


async def prompt(request: Request) -> Response:
    found = await _session_and_body(request)
    if isinstance(found, Response):
        return found
    session, body = found
    streamed = _streamed(request)
    asked = _asked(body, streamed)
    if isinstance(asked, Response):
        return asked
    return _start(_hub(request), session, *asked, streamed=streamed)


def _streamed(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


def _asked(body: dict[str, Any], streamed: bool) -> tuple[str, bool] | Response:
    """A turn's prompt and `close`, or the 400 saying what a valid one is (`close` only with a stream)."""
    text, close = body.get("prompt"), body.get("close", False)
    if not isinstance(text, str) or not text.strip() or not isinstance(close, bool) or (close and not streamed):
        return _error(400, "usage", '{"prompt": "your task", "close": true (with Accept: text/event-stream)}')
    return text, close


def _start(hub: Hub, session: ServedSession, text: str, close: bool, streamed: bool) -> Response:
    """Start the turn: 202, or (`streamed`) its lines as SSE up to its result, then the session ends (`close`;
    also when the client left early)."""
    queue = Watch()
    if streamed:  # registered before the turn starts: none of its lines can be missed
        session.watchers.add(queue)
    if not session.prompt(text):
        session.watchers.discard(queue)
        return _error(409, "usage", "a turn is already running in this session: wait, or interrupt it")
    if not streamed:
        return JSONResponse({"accepted": True}, status_code=202)

    async def stream() -> AsyncIterator[str]:
        try:
            async for line in _lines(session, queue, hub):
                yield line
        finally:  # before the answer's end reaches the client, and also when it left early
            session.watchers.discard(queue)
            if close:
                hub.end(session.id)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def events(request: Request) -> Response:
    session = session_of(request)
    if session is None:
        return _error(404, "not_found", "no such session on this server")
    hub = _hub(request)

    async def stream() -> AsyncIterator[str]:
        with session.watch() as queue:
            yield ": watching\n\n"
            async for line in _lines(session, queue, hub, until_result=False):
                yield line

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def _lines(session: ServedSession, queue: Watch, hub: Hub, until_result: bool = True) -> AsyncIterator[str]:
    """A watcher's lines as SSE events: until the session ends (or `until_result`: after the first result
    line); one that fell too far behind gets the notice saying so."""
    while not (queue.lagged and queue.empty()) and (line := await queue.get()) is not None:
        yield f"event: {line.get('type', 'message')}\ndata: {json.dumps(line)}\n\n"
        if until_result and line.get("type") == "result":
            return
    if queue.lagged and session.id in hub.sessions:
        yield f"event: system\ndata: {json.dumps(LAGGED)}\n\n"


async def permission(request: Request) -> Response:
    found = await _session_and_body(request)
    if isinstance(found, Response):
        return found
    session, body = found
    behavior, message = body.get("behavior"), body.get("message")
    if behavior not in ("allow", "deny") or not (message is None or isinstance(message, str)):
        return _error(400, "usage", '{"behavior": "allow" | "deny", "message": "why (optional)"}')
    approval = Approval(behavior, reason=message or ("The user denied this call." if behavior == "deny"
                                                      else None))
    if not session.approver.answer(request.path_params["rid"], approval):
        return _error(409, "answered", "no such open permission request (answered already, or unknown)")
    return JSONResponse({"answered": True})


async def interrupt(request: Request) -> Response:
    session = session_of(request)
    if session is None:
        return _error(404, "not_found", "no such session on this server")
    return JSONResponse({"interrupted": session.driver.interrupt()})


async def close(request: Request) -> Response:
    if request.path_params["sid"] not in _hub(request).sessions:
        return _error(404, "not_found", "no such session on this server")
    # the session ends in the background (SessionEnd hooks, provider, file): a client leaving waits for none of
    # it, and the server's shutdown waits for all of it
    _hub(request).end(request.path_params["sid"])
    return JSONResponse({"closed": True})


async def openapi(request: Request) -> Response:
    from agentcli.server.openapi import description

    return JSONResponse(description())


ROUTES = [
    Route("/v1/sessions", create, methods=["POST"]),
    Route("/v1/sessions", listing, methods=["GET"]),
    Route("/v1/sessions/{sid}/prompt", prompt, methods=["POST"]),
    Route("/v1/sessions/{sid}/events", events, methods=["GET"]),
    Route("/v1/sessions/{sid}/permissions/{rid}", permission, methods=["POST"]),
    Route("/v1/sessions/{sid}/interrupt", interrupt, methods=["POST"]),
    Route("/v1/sessions/{sid}", close, methods=["DELETE"]),
    Route(OPENAPI_PATH, openapi, methods=["GET"]),
]


def build_app(hub: Hub, token: str) -> ASGIApp:
    app = Starlette(routes=ROUTES)
    app.state.hub = hub
    return BearerAuth(app, token)
