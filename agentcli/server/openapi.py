"""The server's OpenAPI 3.1 description (served at /v1/openapi.json, behind the token like every path)."""

from __future__ import annotations

from typing import Any

from agentcli.version import __version__


def _op(summary: str, body: dict[str, Any] | None = None, ok: str = "200") -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": {ok: {"description": "ok"},
                                                            "401": {"description": "no or wrong bearer token"}}}
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


def _obj(**props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _created(text: dict[str, Any]) -> dict[str, Any]:
    op = _op("create a session in cwd, or resume a stored one; with prompt (and Accept: text/event-stream), its "
             "first turn streamed as Server-Sent Events up to its result (close: the session then ends)",
             _obj(cwd=text, resume=text, prompt=text, close={"type": "boolean", "default": False}), "201")
    op["responses"]["200"] = {"description": "the turn's stream-json lines (with prompt), or the session held",
                              "content": {"text/event-stream": {"schema": text}}}
    return op


def _prompt(text: dict[str, Any]) -> dict[str, Any]:
    op = _op("start a turn (409 while one runs); with Accept: text/event-stream, answered with this turn's lines "
             "as Server-Sent Events up to its result (close: the session then ends)",
             _obj(prompt=text, close={"type": "boolean", "default": False}), "202")
    op["responses"]["200"] = {"description": "this turn's stream-json lines (Accept: text/event-stream)",
                              "content": {"text/event-stream": {"schema": text}}}
    return op


SID = {"name": "sid", "in": "path", "required": True, "schema": {"type": "string"}}


def description() -> dict[str, Any]:
    text = {"type": "string"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "agentcli serve", "version": __version__},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": {
            "/v1/sessions": {
                "get": _op("the sessions this server holds"),
                "post": _created(text),
            },
            "/v1/sessions/{sid}/prompt": {"parameters": [SID], "post": _prompt(text)},
            "/v1/sessions/{sid}/events": {"parameters": [SID], "get": _op(
                "Server-Sent Events: the turn's stream-json lines; permission questions as control_request")},
            "/v1/sessions/{sid}/permissions/{rid}": {
                "parameters": [SID, {"name": "rid", "in": "path", "required": True, "schema": text}],
                "post": _op("answer a permission question", _obj(
                    behavior={"type": "string", "enum": ["allow", "deny"]}, message=text))},
            "/v1/sessions/{sid}/interrupt": {"parameters": [SID], "post": _op("stop the turn under way")},
            "/v1/sessions/{sid}": {"parameters": [SID], "delete": _op("end the session (its file stays)")},
            "/v1/openapi.json": {"get": _op("this description")},
        },
    }
