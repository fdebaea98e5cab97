"""OpenAI Chat Completions (`POST …/chat/completions`): SSE chunks, `[DONE]`, error bodies, request rules."""

from __future__ import annotations

from typing import Any

from tests.fakes.render import Ids, dumps, register
from tests.fakes.script import Fault, Reply, split

_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}
_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 429: "rate_limit_exceeded",
                500: "server_error", 503: "server_error", 529: "server_error"}


def _data(obj: Any) -> bytes:
    return f"data: {dumps(obj)}\n\n".encode()


class OpenAIChatRenderer:
    content_type = "text/event-stream; charset=utf-8"

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return bool(request.get("stream"))

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]:
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        base = {
            "id": ids.next("chatcmpl-"),
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": reply.model or request.get("model", "gpt-fake"),
            "system_fingerprint": "fp_fake",
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            obj = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
            if include_usage:
                obj["usage"] = None
            return _data(obj)

        frames = [chunk({"role": "assistant", "content": "", "refusal": None})]
        pieces = 0
        for part in split(reply.thinking, reply.chunk_size):
            frames.append(chunk({reply.reasoning_field: part}))
            pieces += 1
        for part in reply.text_pieces():
            frames.append(chunk({"content": part}))
            pieces += 1
        for i, call in enumerate(reply.tool_calls):
            head = {"index": i, "id": call.id or ids.next("call_"), "type": "function",
                    "function": {"name": call.name, "arguments": ""}}
            frames.append(chunk({"tool_calls": [head]}))
            args = call.raw_args if call.raw_args is not None else dumps(call.args)
            for part in split(args, reply.args_chunk_size):
                frames.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]}))
                pieces += 1
        frames.append(chunk({}, _FINISH.get(reply.final_stop_reason(), "stop")))
        if include_usage:
            frames.append(_data({**base, "choices": [], "usage": self._usage(reply, pieces)}))
        frames.append(b"data: [DONE]\n\n")
        return frames

    @staticmethod
    def _usage(reply: Reply, pieces: int) -> dict[str, Any]:
        u = reply.usage
        out = u.output_tokens if u.output_tokens is not None else max(1, pieces)
        prompt = u.input_tokens + u.cache_read_tokens
        return {
            "prompt_tokens": prompt,
            "completion_tokens": out,
            "total_tokens": prompt + out,
            "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        }

    def stream_error(self, fault: Fault) -> bytes:
        return _data(self.error_body(fault.status, fault.message, fault.error_type))

    def error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        etype = error_type or _ERROR_TYPES.get(status, "api_error")
        code = "invalid_api_key" if status == 401 else ("context_length_exceeded" if "context" in message
                                                        else None)
        return {"error": {"message": message, "type": etype, "param": None, "code": code}}

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": "".join(reply.text_pieces()) or None,
                               "refusal": None}
        if reply.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id or ids.next("call_"), "type": "function",
                 "function": {"name": c.name, "arguments": c.raw_args or dumps(c.args)}}
                for c in reply.tool_calls
            ]
        return {
            "id": ids.next("chatcmpl-"),
            "object": "chat.completion",
            "created": 1700000000,
            "model": reply.model or request.get("model", "gpt-fake"),
            "choices": [{"index": 0, "message": msg, "logprobs": None,
                         "finish_reason": _FINISH.get(reply.final_stop_reason(), "stop")}],
            "usage": self._usage(reply, 1),
        }

    def validate(self, request: dict[str, Any]) -> list[str]:
        return validate_chat_request(request)


def validate_chat_request(req: dict[str, Any]) -> list[str]:
    """The rules the real Chat Completions API enforces that a client can get wrong."""
    errs: list[str] = []
    if not req.get("model"):
        errs.append("model: required")
    if "stream_options" in req and not req.get("stream"):
        errs.append("stream_options: only allowed when stream is true")
    if "max_tokens" in req and "max_completion_tokens" in req:
        errs.append("max_tokens and max_completion_tokens are mutually exclusive")
    msgs = req.get("messages") or []
    if not msgs:
        errs.append("messages: at least one message is required")
    pending: set[str] = set()
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            errs.append(f"messages[{i}].role: invalid {role!r}")
        if role == "tool":
            if m.get("tool_call_id") not in pending:
                errs.append(f"messages[{i}]: a 'tool' message must answer a tool_call of the preceding "
                            "assistant message")
            pending.discard(m.get("tool_call_id"))
            if not isinstance(m.get("content"), str | list):
                errs.append(f"messages[{i}].content: required for tool messages")
            continue
        if pending:
            errs.append(f"messages[{i}]: tool_call_ids {sorted(pending)} did not have response messages")
            pending = set()
        if role == "assistant":
            for tc in m.get("tool_calls") or []:
                if tc.get("type") != "function" or not isinstance(tc.get("function", {}).get("arguments"), str):
                    errs.append(f"messages[{i}].tool_calls: each needs type 'function' and string arguments")
                pending.add(tc.get("id"))
            if m.get("content") is None and not m.get("tool_calls"):
                errs.append(f"messages[{i}]: assistant content is required unless tool_calls is set")
        elif m.get("content") is None:
            errs.append(f"messages[{i}].content: required")
    if pending:
        errs.append(f"tool_call_ids {sorted(pending)} did not have response messages")
    return errs


register("/chat/completions", OpenAIChatRenderer())
