"""Anthropic Messages API (`POST /v1/messages`): SSE stream, error bodies and request rules."""

from __future__ import annotations

from typing import Any

from tests.fakes.render import Ids, dumps, register
from tests.fakes.script import Fault, Reply, split

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _frame(obj: dict[str, Any]) -> bytes:
    return f"event: {obj['type']}\ndata: {dumps(obj)}\n\n".encode()


class AnthropicRenderer:
    content_type = "text/event-stream; charset=utf-8"

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return bool(request.get("stream"))

    def _message(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        u = reply.usage
        return {
            "id": ids.next("msg_01"),
            "type": "message",
            "role": "assistant",
            "model": reply.model or request.get("model", "claude-fake"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": u.input_tokens,
                "cache_creation_input_tokens": u.cache_write_tokens,
                "cache_read_input_tokens": u.cache_read_tokens,
                "output_tokens": 1,
                "service_tier": "standard",
            },
        }

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]:
        frames = [_frame({"type": "message_start", "message": self._message(reply, request, ids)})]
        index = 0
        pieces = 0
        if reply.thinking:
            frames.append(_block_start(index, {"type": "thinking", "thinking": "", "signature": ""}))
            frames.append(_frame({"type": "ping"}))
            for part in split(reply.thinking, reply.chunk_size):
                frames.append(_delta(index, {"type": "thinking_delta", "thinking": part}))
                pieces += 1
            frames.append(_delta(index, {"type": "signature_delta", "signature": reply.signature}))
            frames.append(_frame({"type": "content_block_stop", "index": index}))
            index += 1
        if reply.search_query:
            sid = ids.next("srvtoolu_01")
            frames.append(_block_start(index, {"type": "server_tool_use", "id": sid, "name": "web_search",
                                               "input": {}}))
            frames.append(_delta(index, {"type": "input_json_delta",
                                         "partial_json": dumps({"query": reply.search_query})}))
            frames.append(_frame({"type": "content_block_stop", "index": index}))
            index += 1
            results = [{"type": "web_search_result", "title": t, "url": u, "encrypted_content": "EqgfCioIARgB",
                        "page_age": None} for t, u in reply.search_sources]
            frames.append(_block_start(index, {"type": "web_search_tool_result", "tool_use_id": sid,
                                               "content": results}))
            frames.append(_frame({"type": "content_block_stop", "index": index}))
            index += 1
        text_pieces = reply.text_pieces()
        if text_pieces or not (reply.thinking or reply.tool_calls):
            frames.append(_block_start(index, {"type": "text", "text": ""}))
            for part in text_pieces:
                frames.append(_delta(index, {"type": "text_delta", "text": part}))
                pieces += 1
            frames.append(_frame({"type": "content_block_stop", "index": index}))
            index += 1
        for call in reply.tool_calls:
            block = {"type": "tool_use", "id": call.id or ids.next("toolu_01"), "name": call.name, "input": {}}
            frames.append(_block_start(index, block))
            args = call.raw_args if call.raw_args is not None else dumps(call.args)
            for part in split(args, reply.args_chunk_size):
                frames.append(_delta(index, {"type": "input_json_delta", "partial_json": part}))
                pieces += 1
            frames.append(_frame({"type": "content_block_stop", "index": index}))
            index += 1
        out = reply.usage.output_tokens if reply.usage.output_tokens is not None else max(1, pieces)
        frames.append(
            _frame(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reply.final_stop_reason(), "stop_sequence": None},
                    "usage": {"output_tokens": out},
                }
            )
        )
        frames.append(_frame({"type": "message_stop"}))
        return frames

    def stream_error(self, fault: Fault) -> bytes:
        etype = fault.error_type or _ERROR_TYPES.get(fault.status, "api_error")
        return _frame({"type": "error", "error": {"type": etype, "message": fault.message}})

    def error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        etype = error_type or _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": etype, "message": message}, "request_id": "req_fake"}

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        msg = self._message(reply, request, ids)
        content: list[dict[str, Any]] = []
        if reply.thinking:
            content.append({"type": "thinking", "thinking": reply.thinking, "signature": reply.signature})
        if reply.text or not reply.tool_calls:
            content.append({"type": "text", "text": "".join(reply.text_pieces())})
        for c in reply.tool_calls:
            content.append({"type": "tool_use", "id": c.id or ids.next("toolu_01"), "name": c.name,
                            "input": c.args})
        msg.update(content=content, stop_reason=reply.final_stop_reason())
        msg["usage"]["output_tokens"] = reply.usage.output_tokens or 1
        return msg

    def validate(self, request: dict[str, Any]) -> list[str]:
        return validate_messages_request(request)


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    return _frame({"type": "content_block_start", "index": index, "content_block": block})


def _delta(index: int, delta: dict[str, Any]) -> bytes:
    return _frame({"type": "content_block_delta", "index": index, "delta": delta})


def validate_messages_request(req: dict[str, Any]) -> list[str]:
    """The rules the real Messages API enforces that a client can get wrong."""
    errs: list[str] = []
    if not isinstance(req.get("max_tokens"), int):
        errs.append("max_tokens: required integer")
    if not req.get("model"):
        errs.append("model: required")
    msgs = req.get("messages") or []
    if not msgs:
        errs.append("messages: at least one message is required")
    cache_marks = _count_cache_control(req)
    if cache_marks > 4:
        errs.append(f"at most 4 blocks may have cache_control, found {cache_marks}")
    thinking = req.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens", 0)
        if not 1024 <= budget < req.get("max_tokens", 0):
            errs.append("thinking.budget_tokens must be ≥ 1024 and less than max_tokens")
        if req.get("temperature") not in (None, 1, 1.0):
            errs.append("temperature may only be set to 1 when thinking is enabled")
    prev_role = None
    pending: set[str] = set()
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role not in ("user", "assistant"):
            errs.append(f"messages.{i}.role: must be user or assistant")
        if i == 0 and role != "user":
            errs.append("messages.0: the first message must use the user role")
        if role == prev_role:
            errs.append(f"messages.{i}: roles must alternate between user and assistant")
        prev_role = role
        blocks = m.get("content")
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        if pending and role == "user":
            answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
            if pending - answered:
                errs.append(f"messages.{i}: tool_use ids {sorted(pending - answered)} have no tool_result "
                            "in the next user message")
            if blocks and blocks[0].get("type") != "tool_result":
                errs.append(f"messages.{i}: tool_result blocks must come first in the user message")
        elif pending:
            errs.append(f"messages.{i}: tool_use ids {sorted(pending)} were not answered")
        pending = set()
        for j, b in enumerate(blocks):
            errs += _check_block(i, j, role, b)
            if b.get("type") == "tool_use":
                pending.add(b.get("id"))
    if pending:
        errs.append(f"the last assistant message has unanswered tool_use ids {sorted(pending)}")
    return errs


def _check_block(i: int, j: int, role: str | None, b: dict[str, Any]) -> list[str]:
    t = b.get("type")
    where = f"messages.{i}.content.{j}"
    if t == "text" and not b.get("text"):
        return [f"{where}: text content blocks must be non-empty"]
    if t == "thinking" and (role != "assistant" or not b.get("signature")):
        return [f"{where}: thinking blocks need a signature and the assistant role"]
    if t == "tool_use" and (role != "assistant" or not isinstance(b.get("input"), dict)):
        return [f"{where}: tool_use must be in an assistant message with an object input"]
    if t == "tool_result" and role != "user":
        return [f"{where}: tool_result must be in a user message"]
    if t not in ("text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"):
        return [f"{where}: unknown block type {t!r}"]
    return []


def _count_cache_control(req: dict[str, Any]) -> int:
    n = 0
    system = req.get("system")
    if isinstance(system, list):
        n += sum(1 for b in system if "cache_control" in b)
    n += sum(1 for t in req.get("tools") or [] if "cache_control" in t)
    for m in req.get("messages") or []:
        if isinstance(m.get("content"), list):
            n += sum(1 for b in m["content"] if "cache_control" in b)
    return n


register("/v1/messages", AnthropicRenderer())


class VertexAnthropicRenderer(AnthropicRenderer):
    """Claude on Vertex AI (`…/publishers/anthropic/models/MODEL:streamRawPredict`): the model is in the path
    and an `anthropic_version` in the body."""

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return path.split("?")[0].endswith(":streamRawPredict")

    def validate(self, request: dict[str, Any]) -> list[str]:
        errs = [e for e in validate_messages_request({**request, "model": "in-the-path"})]
        if not isinstance(request.get("anthropic_version"), str) or not request["anthropic_version"]:
            errs.append("anthropic_version: required on Vertex AI")
        if "model" in request:
            errs.append("model: not allowed in the body on Vertex AI (it is in the URL)")
        return errs


register(":streamRawPredict", VertexAnthropicRenderer())
register(":rawPredict", VertexAnthropicRenderer())
