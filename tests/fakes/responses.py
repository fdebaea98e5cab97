"""OpenAI Responses API (`POST …/responses`): typed SSE events, error bodies and request rules."""

from __future__ import annotations

from typing import Any

from tests.fakes.render import Ids, dumps, register
from tests.fakes.script import Fault, Reply, split

_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 429: "rate_limit_exceeded",
                500: "server_error", 503: "server_error", 529: "server_error"}
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")


class _Frames:
    """Builds `event:`/`data:` frames with increasing sequence numbers."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.seq = 0

    def add(self, type_: str, **fields: Any) -> None:
        obj = {"type": type_, "sequence_number": self.seq, **fields}
        self.seq += 1
        self.frames.append(f"event: {type_}\ndata: {dumps(obj)}\n\n".encode())


class ResponsesRenderer:
    content_type = "text/event-stream; charset=utf-8"

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return bool(request.get("stream"))

    def _response(self, reply: Reply, request: dict[str, Any], rid: str, status: str,
                  output: list[dict[str, Any]], usage: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "id": rid, "object": "response", "created_at": 1700000000, "status": status,
            "model": reply.model or request.get("model", "o3-fake"), "output": output,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": request.get("tools", []),
            "temperature": 1.0, "top_p": 1.0, "instructions": request.get("instructions"),
            "max_output_tokens": request.get("max_output_tokens"), "previous_response_id": None,
            "reasoning": request.get("reasoning") or {"effort": None, "summary": None},
            "text": {"format": {"type": "text"}}, "truncation": "disabled", "usage": usage, "error": None,
            "incomplete_details": ({"reason": "max_output_tokens"} if status == "incomplete" else None),
            "metadata": {}, "store": request.get("store", True),
        }

    def _output(self, reply: Reply, ids: Ids, f: _Frames, encrypted: bool = False) -> tuple[list[dict[str, Any]], int]:
        output: list[dict[str, Any]] = []
        pieces = 0
        if reply.thinking:
            rs = {"id": ids.next("rs_"), "type": "reasoning", "summary": []}
            idx = len(output)
            f.add("response.output_item.added", output_index=idx, item=rs)
            part = {"type": "summary_text", "text": ""}
            f.add("response.reasoning_summary_part.added", item_id=rs["id"], output_index=idx,
                  summary_index=0, part=part)
            for p in split(reply.thinking, reply.chunk_size):
                f.add("response.reasoning_summary_text.delta", item_id=rs["id"], output_index=idx,
                      summary_index=0, delta=p)
                pieces += 1
            done_part = {"type": "summary_text", "text": reply.thinking}
            f.add("response.reasoning_summary_text.done", item_id=rs["id"], output_index=idx,
                  summary_index=0, text=reply.thinking)
            f.add("response.reasoning_summary_part.done", item_id=rs["id"], output_index=idx,
                  summary_index=0, part=done_part)
            rs = {**rs, "summary": [done_part]}
            if encrypted:  # asked for with include=["reasoning.encrypted_content"]
                rs["encrypted_content"] = "gAAAA-fake-" + reply.thinking.encode().hex()[:32]
            f.add("response.output_item.done", output_index=idx, item=rs)
            output.append(rs)
        if reply.search_query:
            ws = {"id": ids.next("ws_"), "type": "web_search_call", "status": "in_progress"}
            idx = len(output)
            f.add("response.output_item.added", output_index=idx, item=ws)
            for phase in ("in_progress", "searching", "completed"):
                f.add(f"response.web_search_call.{phase}", item_id=ws["id"], output_index=idx)
            ws = {**ws, "status": "completed", "action": {"type": "search", "query": reply.search_query}}
            f.add("response.output_item.done", output_index=idx, item=ws)
            output.append(ws)
        text_parts = reply.text_pieces()
        if text_parts or not reply.tool_calls:
            msg: dict[str, Any] = {"id": ids.next("msg_"), "type": "message", "status": "in_progress",
                                   "role": "assistant", "content": []}
            idx = len(output)
            f.add("response.output_item.added", output_index=idx, item=msg)
            empty = {"type": "output_text", "annotations": [], "text": ""}
            f.add("response.content_part.added", item_id=msg["id"], output_index=idx, content_index=0,
                  part=empty)
            for p in text_parts:
                f.add("response.output_text.delta", item_id=msg["id"], output_index=idx, content_index=0,
                      delta=p, logprobs=[])
                pieces += 1
            text = "".join(text_parts)
            annotations = [{"type": "url_citation", "url": u, "title": t, "start_index": 0, "end_index": len(text)}
                           for t, u in reply.search_sources]
            for n, a in enumerate(annotations):
                f.add("response.output_text.annotation.added", item_id=msg["id"], output_index=idx,
                      content_index=0, annotation_index=n, annotation=a)
            full = {"type": "output_text", "annotations": annotations, "text": text}
            f.add("response.output_text.done", item_id=msg["id"], output_index=idx, content_index=0,
                  text=text, logprobs=[])
            f.add("response.content_part.done", item_id=msg["id"], output_index=idx, content_index=0,
                  part=full)
            msg = {**msg, "status": "completed", "content": [full]}
            f.add("response.output_item.done", output_index=idx, item=msg)
            output.append(msg)
        for c in reply.tool_calls:
            args = c.raw_args if c.raw_args is not None else dumps(c.args)
            fc = {"id": ids.next("fc_"), "type": "function_call", "status": "in_progress", "arguments": "",
                  "call_id": c.id or ids.next("call_"), "name": c.name}
            idx = len(output)
            f.add("response.output_item.added", output_index=idx, item=fc)
            for p in split(args, reply.args_chunk_size):
                f.add("response.function_call_arguments.delta", item_id=fc["id"], output_index=idx, delta=p)
                pieces += 1
            f.add("response.function_call_arguments.done", item_id=fc["id"], output_index=idx, arguments=args)
            fc = {**fc, "status": "completed", "arguments": args}
            f.add("response.output_item.done", output_index=idx, item=fc)
            output.append(fc)
        return output, pieces

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]:
        f = _Frames()
        rid = ids.next("resp_")
        f.add("response.created", response=self._response(reply, request, rid, "in_progress", [], None))
        f.add("response.in_progress", response=self._response(reply, request, rid, "in_progress", [], None))
        encrypted = "reasoning.encrypted_content" in (request.get("include") or [])
        output, pieces = self._output(reply, ids, f, encrypted)
        incomplete = reply.final_stop_reason() == "max_tokens"
        status = "incomplete" if incomplete else "completed"
        final = self._response(reply, request, rid, status, output, self._usage(reply, pieces))
        f.add("response.incomplete" if incomplete else "response.completed", response=final)
        return f.frames

    @staticmethod
    def _usage(reply: Reply, pieces: int) -> dict[str, Any]:
        u = reply.usage
        out = u.output_tokens if u.output_tokens is not None else max(1, pieces)
        prompt = u.input_tokens + u.cache_read_tokens
        return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
                "output_tokens": out, "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
                "total_tokens": prompt + out}

    def stream_error(self, fault: Fault) -> bytes:
        obj = {"type": "error", "sequence_number": 999, "code": fault.error_type or "server_error",
               "message": fault.message, "param": None}
        return f"event: error\ndata: {dumps(obj)}\n\n".encode()

    def error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        etype = error_type or _ERROR_TYPES.get(status, "api_error")
        code = "invalid_api_key" if status == 401 else ("context_length_exceeded" if "context" in message
                                                        else None)
        return {"error": {"message": message, "type": etype, "param": None, "code": code}}

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        f = _Frames()
        output, pieces = self._output(reply, ids, f)
        return self._response(reply, request, ids.next("resp_"), "completed", output, self._usage(reply, pieces))

    def validate(self, request: dict[str, Any]) -> list[str]:
        return validate_responses_request(request)


def _check_item(i: int, item: dict[str, Any], calls: set[str], errs: list[str]) -> None:
    kind = item.get("type", "message")
    if kind == "function_call":
        if not isinstance(item.get("arguments"), str) or not item.get("call_id") or not item.get("name"):
            errs.append(f"input[{i}]: function_call needs call_id, name and string arguments")
        calls.add(item.get("call_id", ""))
    elif kind == "function_call_output":
        if item.get("call_id") not in calls:
            errs.append(f"input[{i}]: No tool call found for function call output with call_id "
                        f"{item.get('call_id')!r}")
        if not isinstance(item.get("output"), str | list):
            errs.append(f"input[{i}].output: required")
    elif kind == "message":
        role = item.get("role")
        if role not in ("user", "assistant", "system", "developer"):
            errs.append(f"input[{i}].role: invalid {role!r}")
        content = item.get("content")
        allowed = ("output_text", "refusal") if role == "assistant" else ("input_text", "input_image", "input_file")
        if isinstance(content, list):
            for part in content:
                if part.get("type") not in allowed:
                    errs.append(f"input[{i}].content: type {part.get('type')!r} not valid for role {role}")
        elif not isinstance(content, str):
            errs.append(f"input[{i}].content: required")
    elif kind == "reasoning":
        if not item.get("id") and not item.get("encrypted_content"):
            errs.append(f"input[{i}]: reasoning items need an id or encrypted_content")
        if not isinstance(item.get("summary"), list):
            errs.append(f"input[{i}].summary: required (a list)")
    else:
        errs.append(f"input[{i}].type: unknown {kind!r}")


def validate_responses_request(req: dict[str, Any]) -> list[str]:
    """The rules the real Responses API enforces that a client can get wrong."""
    errs: list[str] = []
    model = str(req.get("model") or "")
    if not model:
        errs.append("model: required")
    if "max_tokens" in req or "max_completion_tokens" in req:
        errs.append("Unsupported parameter: use max_output_tokens")
    if req.get("max_output_tokens") is not None and req["max_output_tokens"] < 16:
        errs.append("max_output_tokens: must be at least 16")
    if model.startswith(_REASONING_PREFIXES) and req.get("temperature") is not None:
        errs.append("Unsupported parameter: 'temperature' is not supported with this model.")
    effort = (req.get("reasoning") or {}).get("effort")
    if effort is not None and effort not in ("minimal", "low", "medium", "high"):
        errs.append(f"reasoning.effort: invalid {effort!r}")
    inp = req.get("input")
    calls: set[str] = set()
    if isinstance(inp, list):
        for i, item in enumerate(inp):
            _check_item(i, item, calls, errs)
    elif not isinstance(inp, str):
        errs.append("input: required")
    for t in req.get("tools") or []:
        if t.get("type") == "function" and (not t.get("name") or "parameters" not in t):
            errs.append("tools: function tools need name and parameters (flat, not nested under 'function')")
    return errs


register("/responses", ResponsesRenderer())
