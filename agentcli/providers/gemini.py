"""Google Gemini (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`) over the lean HTTP client.

The wire format is the one the `google-genai` SDK speaks (importing the SDK costs over half a second, so the
API-key path does without it). Key from `GEMINI_API_KEY` / `GOOGLE_API_KEY` (sent as x-goog-api-key), base URL
from `GOOGLE_GEMINI_BASE_URL`. Function calls arrive whole and without ids (we make them), thought parts
become thinking, `usageMetadata` becomes usage. Options: `thinking_budgets` ({effort: tokens}), `extra_headers`.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any
from urllib.parse import quote

from agentcli.errors import AgentCliError, AuthError, BadRequestError, StreamError
from agentcli.llm.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock, Usage
from agentcli.llm.stream import (
    MessageStop,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
    WebSearchResults,
)
from agentcli.net.api import client_for, events_of, join_url, open_stream
from agentcli.net.errors import ApiIdentity, ConnectionDropped, error_from_event, error_from_status
from agentcli.net.http import HttpClient
from agentcli.providers.base import HttpProvider, ModelRequest, ProviderConfig, missing_key, split_web_search
from agentcli.providers.coalesce import DeltaSink, drive_sse, handle_batch

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
THINKING_BUDGETS = {"low": 1024, "medium": 8192, "high": 24576}
# Gemini 3 wants the thought signature of each function call echoed back; for calls we did not get one for
# (another provider's, or stored before) Google documents this value to skip the check.
SKIP_SIGNATURE = "skip_thought_signature_validator"
_FINISH: dict[str, StopReason] = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "BLOCKLIST": "refusal",
    "SPII": "refusal",
    "MALFORMED_FUNCTION_CALL": "error",
}
# JSON-schema keywords the Gemini function-declaration schema (an OpenAPI subset) rejects.
_UNSUPPORTED_SCHEMA_KEYS = frozenset({"$schema", "additionalProperties", "$id", "$defs", "definitions", "$ref"})


def clean_schema(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: clean_schema(v) for k, v in schema.items() if k not in _UNSUPPORTED_SCHEMA_KEYS}
    if isinstance(schema, list):
        return [clean_schema(v) for v in schema]
    return schema


def wire_contents(messages: tuple[Message, ...], model: str) -> list[dict[str, Any]]:
    """Normalized transcript → Gemini `contents`. Thinking is dropped (Gemini does not take it back);
    a tool result becomes a functionResponse naming its call's function."""
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    sign = model.startswith("gemini-3")
    for m in messages:
        parts: list[dict[str, Any]] = []
        for b in m.content:
            if isinstance(b, TextBlock) and b.text:
                parts.append({"text": b.text})
            elif isinstance(b, ImageBlock):
                parts.append({"inlineData": {"mimeType": b.media_type, "data": b.data}})
            elif isinstance(b, ToolUseBlock):
                names[b.id] = b.name
                part: dict[str, Any] = {"functionCall": {"name": b.name, "args": b.input}}
                if sign:
                    part["thoughtSignature"] = SKIP_SIGNATURE
                parts.append(part)
            elif isinstance(b, ToolResultBlock):
                key = "error" if b.is_error else "output"
                parts.append({"functionResponse": {"name": names.get(b.tool_use_id, "tool"),
                                                   "response": {key: b.content}}})
        if not parts:
            continue
        role = "model" if m.role == "assistant" else "user"
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})
    return out


def wire_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    decls = []
    for t in tools:
        d: dict[str, Any] = {"name": t.name, "description": t.description}
        schema = clean_schema(t.input_schema)
        if schema and schema.get("properties"):
            d["parameters"] = schema
        decls.append(d)
    return [{"functionDeclarations": decls}]


def build_body(request: ModelRequest, options: dict[str, Any]) -> dict[str, Any]:
    gen: dict[str, Any] = {"maxOutputTokens": request.max_tokens}
    if request.temperature is not None:
        gen["temperature"] = request.temperature
    if request.effort:
        budgets = {**THINKING_BUDGETS, **(options.get("thinking_budgets") or {})}
        gen["thinkingConfig"] = {"includeThoughts": True, "thinkingBudget": int(budgets[request.effort])}
    elif "2.5" in request.model or request.model.startswith("gemini-3"):
        gen["thinkingConfig"] = {"includeThoughts": True}
    body: dict[str, Any] = {"contents": wire_contents(request.messages, request.model), "generationConfig": gen}
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    tools, search = split_web_search(request.tools)
    if tools or search:
        body["tools"] = (wire_tools(tools) if tools else []) + ([{"google_search": {}}] if search else [])
    body.update(request.extra)
    return body


class GeminiStreamState:
    """`GenerateContentResponse` chunks → StreamEvents."""

    def __init__(self, who: ApiIdentity) -> None:
        self.who = who
        self.model: str | None = None
        self.calls = 0
        self.finish: str | None = None
        self.usage: Usage | None = None
        self.sink = DeltaSink()

    def handle(self, data: str) -> list[StreamEvent]:
        try:
            obj = json.loads(data)
        except ValueError:
            raise StreamError(f"malformed event from {self.who.label}: {data[:200]!r}") from None
        if not isinstance(obj, dict):
            raise StreamError(f"malformed event from {self.who.label}: {data[:200]!r}")
        return self._handle(obj)

    def handle_all(self, datas: list[str]) -> AgentCliError | None:
        """Collect the events of one read's SSE data in `sink`; return the error that stopped them, if any."""
        return handle_batch(datas, self._handle_obj, self._handle_text, self.who.label)

    def _handle_text(self, data: str) -> None:
        self.sink.extend(self.handle(data))

    def _handle_obj(self, obj: dict[str, Any]) -> None:
        cands = obj.get("candidates")
        if cands and len(cands) == 1 and "error" not in obj and not obj.get("usageMetadata"):
            # The hot path, one event per token: one candidate, one text part, not finished.
            cand = cands[0]
            parts = None if cand.get("finishReason") else (cand.get("content") or {}).get("parts")
            if parts and len(parts) == 1 and len(parts[0]) == 1 and parts[0].get("text").__class__ is str:
                if self.model is None:
                    self.model = obj.get("modelVersion")
                if parts[0]["text"]:
                    self.sink.text(parts[0]["text"])
                return
        self.sink.extend(self._handle(obj))

    def _handle(self, obj: dict[str, Any]) -> list[StreamEvent]:
        if "error" in obj:
            err = obj["error"] or {}
            code, message = err.get("code"), str(err.get("message", ""))
            if isinstance(code, int):
                raise error_from_status(code, message, self.who)
            raise error_from_event(err.get("status"), message, self.who)
        self.model = obj.get("modelVersion") or self.model
        out: list[StreamEvent] = []
        cands = obj.get("candidates") or []
        if cands:
            for part in (cands[0].get("content") or {}).get("parts") or ():
                out += self._part(part)
            self.finish = cands[0].get("finishReason") or self.finish
            grounding = cands[0].get("groundingMetadata")
            if isinstance(grounding, dict):
                out += _grounding(grounding)
        meta = obj.get("usageMetadata")
        if meta:
            self.usage = usage_from(meta)
            out.append(UsageReport(self.usage))
        return out

    def _part(self, part: dict[str, Any]) -> list[StreamEvent]:
        if "functionCall" in part:
            fc = part["functionCall"] or {}
            i = self.calls
            self.calls += 1
            args = json.dumps(fc.get("args") or {}, ensure_ascii=False)
            call_id = fc.get("id") or f"call_{os.urandom(12).hex()}"
            return [ToolCallStart(i, call_id, fc.get("name", "")), ToolCallDelta(i, args), ToolCallEnd(i)]
        text = part.get("text")
        if not text:
            return []
        return [ThinkingDelta(text)] if part.get("thought") else [TextDelta(text)]

    def stop(self) -> MessageStop:
        reason = _FINISH.get(self.finish or "STOP", "end_turn")
        if reason == "end_turn" and self.calls:
            reason = "tool_use"
        return MessageStop(reason, self.model)


def _grounding(meta: dict[str, Any]) -> list[StreamEvent]:
    """Google Search grounding: the queries Gemini ran and the web pages it grounded the answer on."""
    queries = tuple(str(q) for q in meta.get("webSearchQueries") or () if q)
    sources = tuple((str(web.get("title", "")), str(web["uri"])) for c in meta.get("groundingChunks") or ()
                    if isinstance(c, dict) and isinstance(web := c.get("web"), dict) and web.get("uri"))
    return [WebSearchResults("google", queries, sources)] if queries or sources else []


def usage_from(meta: dict[str, Any]) -> Usage:
    cached = int(meta.get("cachedContentTokenCount") or 0)
    thoughts = int(meta.get("thoughtsTokenCount") or 0)
    return Usage(
        input_tokens=max(0, int(meta.get("promptTokenCount") or 0) - cached),
        output_tokens=int(meta.get("candidatesTokenCount") or 0) + thoughts,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
    )


async def parse_stream(chunks: AsyncIterable[bytes], who: ApiIdentity) -> AsyncIterator[StreamEvent]:
    state = GeminiStreamState(who)
    async for ev in drive_sse(chunks, state):
        yield ev
    if state.finish is None:
        raise ConnectionDropped(f"the {who.label} stream ended before a finishReason")
    yield state.stop()


class GeminiProvider(HttpProvider):
    name = "google"

    def __init__(self, cfg: ProviderConfig, *, client: HttpClient | None = None) -> None:
        self.cfg = cfg
        self.base_url = (cfg.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._client = client or client_for(cfg)
        self.who = ApiIdentity("Gemini", "GEMINI_API_KEY", (cfg.api_key,))

    def headers(self) -> dict[str, str]:
        h = {"accept": "text/event-stream"}
        if self.cfg.api_key:
            h["x-goog-api-key"] = self.cfg.api_key
        h.update(self.cfg.options.get("extra_headers") or {})
        return h

    def url(self, model: str) -> str:
        base = self.base_url
        if not base.rstrip("/").endswith(("/v1beta", "/v1", "/v1alpha")):
            base = join_url(base, f"/{API_VERSION}")
        return join_url(base, f"/models/{quote(model, safe='.-_')}:streamGenerateContent") + "?alt=sse"

    def check_credentials(self) -> None:
        """Raise AuthError before any request when Google's endpoint would need a key we do not have."""
        if not self.cfg.api_key and self.base_url == DEFAULT_BASE_URL:
            raise missing_key("GEMINI_API_KEY", also="GOOGLE_API_KEY")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.check_credentials()
        try:
            resp = await open_stream(
                self._client, self.url(request.model), headers=self.headers(),
                body=build_body(request, self.cfg.options), who=self.who,
            )
        except BadRequestError as err:
            # Google answers a wrong key with 400 INVALID_ARGUMENT, not 401.
            if "API key" in err.message or "API_KEY" in err.message:
                hint = "check GEMINI_API_KEY (or GOOGLE_API_KEY)"
                raise AuthError(err.message, hint=hint, status=err.status) from None
            raise
        async for ev in events_of(resp, lambda body: parse_stream(body, self.who)):
            yield ev

