"""Anthropic Messages API, streamed over the lean HTTP client (no SDK import on this path).

ProviderConfig: `api_key` (ANTHROPIC_API_KEY, sent as x-api-key), `base_url` (ANTHROPIC_BASE_URL, default
https://api.anthropic.com). Options: `auth_token` (ANTHROPIC_AUTH_TOKEN, sent as a Bearer token),
`prompt_caching` (default True), `thinking_budgets` ({effort: tokens}), `betas` (list for anthropic-beta),
`extra_headers` (dict).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from agentcli.errors import AgentCliError, StreamError
from agentcli.llm.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from agentcli.llm.stream import (
    MessageStop,
    RedactedThinking,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
    WebSearchResults,
)
from agentcli.net.api import client_for, events_of, join_url, open_stream
from agentcli.net.errors import ApiIdentity, ConnectionDropped, error_from_event
from agentcli.net.http import HttpClient, is_loopback_url
from agentcli.net.sse import loads_event
from agentcli.providers.base import HttpProvider, ModelRequest, ProviderConfig, missing_key, split_web_search
from agentcli.providers.coalesce import DeltaSink, drive_sse, handle_batch

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
THINKING_BUDGETS = {"low": 4000, "medium": 10000, "high": 31999}
_CACHE = {"type": "ephemeral"}
_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "end_turn",
    "model_context_window_exceeded": "max_tokens",
}
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
# Anthropic's server-side web search: it searches during the response; results arrive as content blocks.
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}


class AnthropicProvider(HttpProvider):
    """Streams `POST {base}/v1/messages` and yields normalized `StreamEvent`s."""

    name = "anthropic"

    def __init__(self, cfg: ProviderConfig, *, client: HttpClient | None = None) -> None:
        self.cfg = cfg
        self.base_url = (cfg.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._auth_token: str | None = cfg.options.get("auth_token")
        self._client = client or client_for(cfg)
        self.who = ApiIdentity("Anthropic", "ANTHROPIC_API_KEY", (cfg.api_key, self._auth_token))

    def headers(self) -> dict[str, str]:
        h = {"anthropic-version": API_VERSION, "accept": "application/json"}
        if self.cfg.api_key:
            h["x-api-key"] = self.cfg.api_key
        if self._auth_token:
            h["authorization"] = f"Bearer {self._auth_token}"
        betas = self.cfg.options.get("betas")
        if betas:
            h["anthropic-beta"] = ",".join(betas)
        h.update(self.cfg.options.get("extra_headers") or {})
        return h

    def check_credentials(self) -> None:
        """Raise AuthError before any request when a remote endpoint would need a key we do not have."""
        if self.cfg.api_key or self._auth_token:
            return
        if is_loopback_url(self.base_url):
            return
        raise missing_key("ANTHROPIC_API_KEY")

    def build_body(self, req: ModelRequest) -> dict[str, Any]:
        return self.build_body_for(req, self.cfg.options)

    @staticmethod
    def build_body_for(req: ModelRequest, options: dict[str, Any]) -> dict[str, Any]:
        """The Messages API body (also what the Bedrock and Vertex AI clients send)."""
        caching = bool(options.get("prompt_caching", True))
        body: dict[str, Any] = {
            "model": req.model,
            "max_tokens": req.max_tokens,
            "stream": True,
            "messages": wire_messages(req.messages, caching=caching),
        }
        if req.system:
            block: dict[str, Any] = {"type": "text", "text": req.system}
            if caching:
                block["cache_control"] = _CACHE
            body["system"] = [block]
        tools, search = split_web_search(req.tools)
        if tools or search:
            body["tools"] = wire_tools(tools, caching=caching) + ([WEB_SEARCH] if search else [])
        if req.effort:
            budgets = {**THINKING_BUDGETS, **(options.get("thinking_budgets") or {})}
            budget = int(budgets[req.effort])
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            if req.max_tokens <= budget:
                body["max_tokens"] = budget + req.max_tokens
        elif req.temperature is not None:
            body["temperature"] = req.temperature
        body.update(req.extra)
        return body

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.check_credentials()
        resp = await open_stream(
            self._client,
            join_url(self.base_url, "/v1/messages"),
            headers=self.headers(),
            body=self.build_body(request),
            who=self.who,
        )
        async for ev in events_of(resp, lambda body: parse_stream(body, self.who)):
            yield ev



# ---- request ----------------------------------------------------------------------------------------------


def wire_tools(tools: tuple[ToolSpec, ...], *, caching: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"name": t.name, "description": t.description,
         "input_schema": t.input_schema or {"type": "object", "properties": {}}}
        for t in tools
    ]
    if caching and out:
        out[-1]["cache_control"] = _CACHE
    return out


def wire_messages(messages: tuple[Message, ...], *, caching: bool) -> list[dict[str, Any]]:
    """Messages in Anthropic shape: other providers' thinking dropped, same-role neighbours merged,
    tool results first in their user message, a cache mark on the last cacheable block."""
    out: list[dict[str, Any]] = []
    for m in messages:
        blocks = [w for w in (wire_block(b) for b in m.content) if w is not None]
        if not blocks:
            continue
        if out and out[-1]["role"] == m.role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": m.role, "content": blocks})
    for wm in out:
        if wm["role"] == "user":
            wm["content"].sort(key=lambda b: b["type"] != "tool_result")
    if caching and out:
        for b in reversed(out[-1]["content"]):
            if b["type"] not in ("thinking", "redacted_thinking"):
                b["cache_control"] = _CACHE
                break
    return out


def wire_block(b: ContentBlock) -> dict[str, Any] | None:
    match b:
        case TextBlock(text):
            return {"type": "text", "text": text} if text else None
        case ThinkingBlock(thinking, signature, provider):
            if not signature or provider not in (None, "anthropic"):
                return None
            return {"type": "thinking", "thinking": thinking, "signature": signature}
        case RedactedThinkingBlock(data, provider):
            return {"type": "redacted_thinking", "data": data} if provider in (None, "anthropic") else None
        case ToolUseBlock(id_, name, input_, _raw):
            return {"type": "tool_use", "id": _ID_UNSAFE.sub("_", id_), "name": name, "input": input_}
        case ToolResultBlock(tool_use_id, content, is_error):
            d: dict[str, Any] = {"type": "tool_result", "tool_use_id": _ID_UNSAFE.sub("_", tool_use_id)}
            if content:
                d["content"] = content
            if is_error:
                d["is_error"] = True
            return d
        case ImageBlock(media_type, data):
            return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return None


# ---- response stream --------------------------------------------------------------------------------------


async def parse_stream(chunks: AsyncIterable[bytes], who: ApiIdentity) -> AsyncIterator[StreamEvent]:
    """Anthropic SSE bytes → StreamEvents. Raises the mapped error for an `error` event, StreamError for
    an unparsable one, and UnavailableError when the stream ends before `message_stop`.

    Work is per network read (agentcli.providers.coalesce): the read's events are JSON-decoded in one call and
    their deltas merged; an error is raised after the events that preceded it."""
    state = StreamState(who)
    async for ev in drive_sse(chunks, state):
        yield ev
    if not state.stopped:
        raise ConnectionDropped(f"the {who.label} stream ended before message_stop")


class StreamState:
    __slots__ = ("model", "server_blocks", "sink", "stop_reason", "stopped", "tool_blocks", "usage", "who")

    def __init__(self, who: ApiIdentity) -> None:
        self.who = who
        self.usage = Usage()
        self.model: str | None = None
        self.stop_reason: StopReason = "end_turn"
        self.tool_blocks: set[int] = set()
        self.server_blocks: dict[int, list[str]] = {}  # server tool calls (web search): their input JSON pieces
        self.stopped = False
        self.sink = DeltaSink()

    def handle(self, data: str) -> StreamEvent | None:
        try:
            return self._handle(loads_event(data))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise StreamError(f"malformed event from {self.who.label}: {data[:200]!r}") from None

    def handle_all(self, datas: list[str]) -> AgentCliError | None:
        """Collect the events of one read's SSE data in `sink`; return the error that stopped them, if any."""
        return handle_batch(datas, self._handle_obj, self._handle_text, self.who.label)

    def _handle_text(self, data: str) -> None:
        ev = self.handle(data)
        if ev is not None:
            self.sink.add(ev)

    def _handle_obj(self, obj: dict[str, Any]) -> None:
        if obj["type"] == "content_block_delta":
            delta = obj["delta"]
            if delta.get("type") == "text_delta":  # the hot path: one event per token
                text = delta["text"]
                if text.__class__ is not str:
                    raise TypeError("text_delta without text")
                self.sink.text(text)
                return
        ev = self._handle(obj)
        if ev is not None:
            self.sink.add(ev)

    def handle_obj(self, ev: dict[str, Any]) -> StreamEvent | None:
        """One decoded event (the Bedrock client's), as from the SSE stream."""
        return self._handle(ev)

    def _handle(self, ev: dict[str, Any]) -> StreamEvent | None:
        kind = ev["type"]
        if kind == "content_block_delta":
            delta = ev["delta"]
            dtype = delta.get("type")
            if dtype == "text_delta":
                return TextDelta(delta["text"])
            if dtype == "input_json_delta":
                if ev["index"] in self.server_blocks:
                    self.server_blocks[ev["index"]].append(delta["partial_json"])
                    return None
                return ToolCallDelta(ev["index"], delta["partial_json"])
            if dtype == "thinking_delta":
                return ThinkingDelta(delta["thinking"])
            if dtype == "signature_delta":
                return ThinkingSignature(delta["signature"])
            return None
        if kind == "content_block_start":
            return self._block_start(ev["index"], ev["content_block"])
        if kind == "content_block_stop":
            return ToolCallEnd(ev["index"]) if ev["index"] in self.tool_blocks else None
        if kind == "message_start":
            msg = ev["message"]
            self.model = msg.get("model")
            return self._usage(msg.get("usage") or {})
        if kind == "message_delta":
            reason = (ev.get("delta") or {}).get("stop_reason")
            if reason:
                self.stop_reason = _STOP.get(reason, "end_turn")
            return self._usage(ev.get("usage") or {})
        if kind == "message_stop":
            self.stopped = True
            return MessageStop(self.stop_reason, self.model)
        if kind == "error":
            err = ev.get("error") or {}
            raise error_from_event(err.get("type"), str(err.get("message", "")), self.who)
        return None  # ping and event types added after this was written

    def _block_start(self, index: int, block: dict[str, Any]) -> StreamEvent | None:
        btype = block.get("type")
        if btype == "tool_use":
            self.tool_blocks.add(index)
            return ToolCallStart(index, block["id"], block["name"])
        if btype == "text" and block.get("text"):
            return TextDelta(block["text"])
        if btype == "thinking" and block.get("thinking"):
            return ThinkingDelta(block["thinking"])
        if btype == "redacted_thinking":
            return RedactedThinking(block.get("data", ""))
        if btype == "server_tool_use":
            self.server_blocks[index] = [json.dumps(block["input"])] if block.get("input") else []
            return None
        if btype == "web_search_tool_result":
            return self._search_result(block)
        return None

    def _search_result(self, block: dict[str, Any]) -> WebSearchResults:
        queries: list[str] = []
        for pieces in self.server_blocks.values():
            try:
                q = json.loads("".join(pieces) or "{}").get("query")
            except ValueError:
                q = None
            if isinstance(q, str) and q not in queries:
                queries.append(q)
        content = block.get("content")
        items = content if isinstance(content, list) else []
        sources = tuple((str(i.get("title", "")), str(i.get("url", ""))) for i in items
                        if isinstance(i, dict) and i.get("type") == "web_search_result")
        return WebSearchResults("anthropic", tuple(queries), sources)

    def _usage(self, u: dict[str, Any]) -> UsageReport:
        """Usage figures are cumulative; a field absent (or null) in this event keeps its earlier value."""
        old = self.usage

        def pick(key: str, prev: int) -> int:
            v = u.get(key)
            return int(v) if v is not None else prev

        self.usage = Usage(
            input_tokens=pick("input_tokens", old.input_tokens),
            output_tokens=pick("output_tokens", old.output_tokens),
            cache_read_tokens=pick("cache_read_input_tokens", old.cache_read_tokens),
            cache_write_tokens=pick("cache_creation_input_tokens", old.cache_write_tokens),
        )
        return UsageReport(self.usage)
