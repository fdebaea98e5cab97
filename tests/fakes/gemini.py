"""Google Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`): SSE chunks of
GenerateContentResponse, Google-style error bodies and request rules."""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.render import Ids, dumps, register
from tests.fakes.script import Fault, Reply, split

_FINISH = {"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS", "refusal": "SAFETY"}
_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
           429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 529: "UNAVAILABLE"}
_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.\-]{0,63}$")
_DATA_FIELDS = ("text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode",
                "codeExecutionResult")
_BAD_SCHEMA_KEYS = ("additionalProperties", "$schema", "$ref", "$defs")


def _data(obj: Any) -> bytes:
    return f"data: {dumps(obj)}\r\n\r\n".encode()


class GeminiRenderer:
    content_type = "text/event-stream"

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return "streamGenerateContent" in path

    def _chunk(self, reply: Reply, parts: list[dict[str, Any]], finish: str | None = None,
               usage: dict[str, Any] | None = None) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        obj: dict[str, Any] = {"candidates": [cand], "modelVersion": reply.model or "gemini-fake",
                               "responseId": "fake-response"}
        if usage:
            obj["usageMetadata"] = usage
        return obj

    def _chunks(self, reply: Reply) -> list[dict[str, Any]]:
        chunks = [self._chunk(reply, [{"text": p, "thought": True}]) for p in split(reply.thinking, reply.chunk_size)]
        chunks += [self._chunk(reply, [{"text": p}]) for p in reply.text_pieces()]
        if reply.tool_calls:
            chunks.append(self._chunk(reply, [{"functionCall": {"name": c.name, "args": c.args}}
                                              for c in reply.tool_calls]))
        pieces = len(chunks)
        final = self._chunk(reply, [{"text": ""}], _FINISH.get(reply.final_stop_reason(), "STOP"),
                            self._usage(reply, pieces))
        if reply.search_query:
            final["candidates"][0]["groundingMetadata"] = {
                "webSearchQueries": [reply.search_query],
                "searchEntryPoint": {"renderedContent": "<div>search</div>"},
                "groundingChunks": [{"web": {"uri": u, "title": t}} for t, u in reply.search_sources],
                "groundingSupports": [],
            }
        return [*chunks, final]

    @staticmethod
    def _usage(reply: Reply, pieces: int) -> dict[str, Any]:
        u = reply.usage
        out = u.output_tokens if u.output_tokens is not None else max(1, pieces)
        prompt = u.input_tokens + u.cache_read_tokens
        meta = {"promptTokenCount": prompt, "candidatesTokenCount": out - u.reasoning_tokens,
                "totalTokenCount": prompt + out}
        if u.reasoning_tokens:
            meta["thoughtsTokenCount"] = u.reasoning_tokens
        if u.cache_read_tokens:
            meta["cachedContentTokenCount"] = u.cache_read_tokens
        return meta

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]:
        return [_data(c) for c in self._chunks(reply)]

    def stream_error(self, fault: Fault) -> bytes:
        return _data(self.error_body(fault.status, fault.message, fault.error_type))

    def error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": error_type or _STATUS.get(status, "UNKNOWN")}}

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        chunks = self._chunks(reply)
        parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"] if p != {"text": ""}]
        return self._chunk(reply, parts, chunks[-1]["candidates"][0]["finishReason"], chunks[-1]["usageMetadata"])

    def validate(self, request: dict[str, Any]) -> list[str]:
        return validate_generate_request(request)


def _check_schema(schema: Any, where: str, errs: list[str]) -> None:
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k in _BAD_SCHEMA_KEYS:
                errs.append(f'Invalid JSON payload received. Unknown name "{k}" at \'{where}\'')
            _check_schema(v, where, errs)
    elif isinstance(schema, list):
        for v in schema:
            _check_schema(v, where, errs)


def _check_turns(contents: list[dict[str, Any]], errs: list[str]) -> None:
    pending = 0
    for i, c in enumerate(contents):
        role = c.get("role")
        if role not in ("user", "model"):
            errs.append(f"contents[{i}].role: must be 'user' or 'model', got {role!r}")
        parts = c.get("parts") or []
        if not parts:
            errs.append(f"contents[{i}].parts: must not be empty")
        for j, p in enumerate(parts):
            if sum(k in p for k in _DATA_FIELDS) != 1:
                errs.append(f"contents[{i}].parts[{j}]: exactly one data field is required")
        responses = sum("functionResponse" in p for p in parts)
        if responses and responses != pending:
            errs.append(f"contents[{i}]: the number of function response parts ({responses}) must equal the "
                        f"number of function call parts of the function call turn ({pending})")
        if role == "user" and responses and any("functionResponse" not in p for p in parts[:responses]):
            errs.append(f"contents[{i}]: function responses must come first")
        pending = sum("functionCall" in p for p in parts) if role == "model" else 0
        if role == "model" and any("functionResponse" in p for p in parts):
            errs.append(f"contents[{i}]: functionResponse parts belong to a user turn")


def validate_generate_request(req: dict[str, Any]) -> list[str]:
    """What the Gemini API rejects that a client can get wrong."""
    errs: list[str] = []
    contents = req.get("contents")
    if not contents:
        errs.append("contents: must not be empty")
    else:
        _check_turns(contents, errs)
        if contents[0].get("role") != "user":
            errs.append("contents[0]: the first turn must be the user's")
    sys_inst = req.get("systemInstruction")
    if sys_inst is not None and not (sys_inst.get("parts") or []):
        errs.append("systemInstruction.parts: required")
    for t in req.get("tools") or []:
        for d in t.get("functionDeclarations") or []:
            if not _NAME.match(str(d.get("name", ""))):
                errs.append(f"functionDeclarations: invalid name {d.get('name')!r}")
            _check_schema(d.get("parameters"), f"tools.function_declarations[{d.get('name')}].parameters", errs)
    gen = req.get("generationConfig") or {}
    if "max_tokens" in gen or "maxTokens" in gen:
        errs.append("generationConfig: use maxOutputTokens")
    return errs


_R = GeminiRenderer()
register(":streamGenerateContent", _R)
register(":generateContent", _R)
