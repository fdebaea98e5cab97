"""OpenAI Responses API (`POST {base}/responses`, typed SSE events) over the lean HTTP client.

Used for reasoning models (o-series, gpt-5…): reasoning summaries stream as thinking, `reasoning.effort` comes
from `--effort`, usage includes reasoning tokens. `needs_responses_api(model)` tells the selection code which
models get this adapter by default. Options: `reasoning_summary` ("auto"; None to not ask), `store` (False),
`extra_headers` (dict).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from agentcli.errors import AgentCliError, StreamError
from agentcli.llm.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from agentcli.llm.stream import (
    MessageStop,
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
from agentcli.providers.base import HttpProvider, ModelRequest, ProviderConfig, missing_key, split_web_search
from agentcli.providers.coalesce import DeltaSink, drive_sse, handle_batch

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "codex-")
_INCOMPLETE: dict[str, StopReason] = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}


def needs_responses_api(model: str) -> bool:
    """Reasoning models, whose reasoning only the Responses API streams (as summaries)."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith(_REASONING_PREFIXES) and "chat" not in name


def reasoning_item(b: ThinkingBlock) -> dict[str, Any] | None:
    """Our own reasoning, replayed: the encrypted item the API returned (kept as the block's signature, since
    `store` is off), with its summary. Other providers' thinking, or an unsigned summary, is not replayed."""
    if b.provider != "openai-responses" or not b.signature:
        return None
    try:
        kept = json.loads(b.signature)
    except ValueError:
        return None
    if not isinstance(kept, dict) or not kept.get("encrypted_content"):
        return None
    summary = [{"type": "summary_text", "text": b.thinking}] if b.thinking else []
    return {"type": "reasoning", "id": kept.get("id"), "encrypted_content": kept["encrypted_content"],
            "summary": summary}


def wire_input(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Normalized transcript → Responses `input` items: our own reasoning items first (see `reasoning_item`),
    then text; tool calls and results become function_call / function_call_output items."""
    items: list[dict[str, Any]] = []
    for m in messages:
        parts: list[dict[str, Any]] = []
        for b in m.content:
            if isinstance(b, ThinkingBlock) and m.role == "assistant" and (item := reasoning_item(b)):
                items.append(item)
        for b in m.content:
            if isinstance(b, TextBlock) and b.text:
                kind = "output_text" if m.role == "assistant" else "input_text"
                parts.append({"type": kind, "text": b.text})
            elif isinstance(b, ImageBlock) and m.role == "user":
                parts.append({"type": "input_image", "image_url": f"data:{b.media_type};base64,{b.data}"})
            elif isinstance(b, ToolResultBlock):
                items.append({"type": "function_call_output", "call_id": b.tool_use_id, "output": b.content})
        if parts:
            items.append({"type": "message", "role": m.role, "content": parts})
        for b in m.content:
            if isinstance(b, ToolUseBlock):
                args = b.raw_arguments if b.raw_arguments is not None else json.dumps(b.input, ensure_ascii=False)
                items.append({"type": "function_call", "call_id": b.id, "name": b.name, "arguments": args})
    return items


def wire_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "name": t.name, "description": t.description,
         "parameters": t.input_schema or {"type": "object", "properties": {}}, "strict": False}
        for t in tools
    ]


def build_body(request: ModelRequest, options: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": request.model,
        "input": wire_input(request.messages),
        "stream": True,
        "store": bool(options.get("store", False)),
        "max_output_tokens": max(16, request.max_tokens),
    }
    if not body["store"]:
        # Without server-side storage, reasoning carries over between turns only as the encrypted item.
        body["include"] = ["reasoning.encrypted_content"]
    if request.system:
        body["instructions"] = request.system
    tools, search = split_web_search(request.tools)
    if tools or search:
        body["tools"] = wire_tools(tools) + ([{"type": "web_search"}] if search else [])
    if needs_responses_api(request.model):
        reasoning: dict[str, Any] = {}
        if request.effort:
            reasoning["effort"] = request.effort
        summary = options.get("reasoning_summary", "auto")
        if summary:
            reasoning["summary"] = summary
        if reasoning:
            body["reasoning"] = reasoning
    elif request.temperature is not None:
        body["temperature"] = request.temperature
    body.update(request.extra)
    return body


class ResponsesStreamState:
    """Responses SSE events → StreamEvents; tool calls are numbered in the order their items appear."""

    def __init__(self, who: ApiIdentity) -> None:
        self.who = who
        self.model: str | None = None
        self.stopped = False
        self._index: dict[str, int] = {}
        self._args_seen: dict[int, bool] = {}
        self._ended: set[int] = set()
        self._queries: list[str] = []
        self._sources: list[tuple[str, str]] = []
        self.sink = DeltaSink()

    def handle(self, data: str) -> list[StreamEvent]:
        try:
            ev = json.loads(data)
            ev["type"]  # an event without a type is malformed
        except (ValueError, KeyError, TypeError):
            raise StreamError(f"malformed event from {self.who.label}: {data[:200]!r}") from None
        return self._handle(ev)

    def handle_all(self, datas: list[str]) -> AgentCliError | None:
        """Collect the events of one read's SSE data in `sink`; return the error that stopped them, if any."""
        return handle_batch(datas, self._handle_obj, self._handle_text, self.who.label)

    def _handle_text(self, data: str) -> None:
        self.sink.extend(self.handle(data))

    def _handle_obj(self, ev: dict[str, Any]) -> None:
        if ev["type"] == "response.output_text.delta":  # the hot path: one event per token
            delta = ev.get("delta")
            if delta.__class__ is str:
                if delta:
                    self.sink.text(delta)
                return
        self.sink.extend(self._handle(ev))

    def _handle(self, ev: dict[str, Any]) -> list[StreamEvent]:
        kind = ev["type"]
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            return [TextDelta(ev["delta"])] if ev.get("delta") else []
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return [ThinkingDelta(ev["delta"])] if ev.get("delta") else []
        if kind == "response.reasoning_summary_part.added" and ev.get("summary_index", 0) > 0:
            return [ThinkingDelta("\n\n")]
        if kind == "response.function_call_arguments.delta":
            i = self._index.get(ev.get("item_id", ""))
            if i is None or not ev.get("delta"):
                return []
            self._args_seen[i] = True
            return [ToolCallDelta(i, ev["delta"])]
        if kind == "response.output_item.added":
            return self._item_added(ev.get("item") or {})
        if kind == "response.output_item.done":
            return self._item_done(ev.get("item") or {})
        if kind in ("response.created", "response.in_progress"):
            self.model = (ev.get("response") or {}).get("model") or self.model
            return []
        if kind == "response.output_text.annotation.added":
            a = ev.get("annotation") or {}
            if a.get("type") == "url_citation" and a.get("url"):
                self._sources.append((str(a.get("title", "")), str(a["url"])))
            return []
        if kind in ("response.completed", "response.incomplete"):
            return self._searched() + self._finish(ev.get("response") or {})
        if kind == "response.failed":
            err = (ev.get("response") or {}).get("error") or {}
            raise error_from_event(err.get("code"), str(err.get("message", "the response failed")), self.who)
        if kind == "error":
            raise error_from_event(ev.get("code"), str(ev.get("message", "")), self.who)
        return []

    def _item_added(self, item: dict[str, Any]) -> list[StreamEvent]:
        if item.get("type") != "function_call":
            return []
        i = len(self._index)
        self._index[item.get("id") or item.get("call_id", str(i))] = i
        out: list[StreamEvent] = [ToolCallStart(i, item.get("call_id") or item.get("id", ""), item.get("name", ""))]
        if item.get("arguments"):
            self._args_seen[i] = True
            out.append(ToolCallDelta(i, item["arguments"]))
        return out

    def _searched(self) -> list[StreamEvent]:
        """The server-side web search this response did, with the sources its text cites."""
        if not (self._queries or self._sources):
            return []
        return [WebSearchResults("openai", tuple(self._queries), tuple(dict.fromkeys(self._sources)))]

    def _item_done(self, item: dict[str, Any]) -> list[StreamEvent]:
        if item.get("type") == "web_search_call":
            query = (item.get("action") or {}).get("query")
            if isinstance(query, str) and query:
                self._queries.append(query)
            return []
        if item.get("type") == "reasoning" and item.get("encrypted_content"):
            kept = {"id": item.get("id"), "encrypted_content": item["encrypted_content"]}
            return [ThinkingSignature(json.dumps(kept, separators=(",", ":")))]
        if item.get("type") != "function_call":
            return []
        key = item.get("id") or item.get("call_id", "")
        out: list[StreamEvent] = [] if key in self._index else self._item_added({**item, "arguments": ""})
        i = self._index[key]
        if not self._args_seen.get(i) and item.get("arguments"):
            out.append(ToolCallDelta(i, item["arguments"]))
        if i not in self._ended:
            self._ended.add(i)
            out.append(ToolCallEnd(i))
        return out

    def _finish(self, resp: dict[str, Any]) -> list[StreamEvent]:
        self.stopped = True
        self.model = resp.get("model") or self.model
        u = resp.get("usage") or {}
        cached = int((u.get("input_tokens_details") or {}).get("cached_tokens") or 0)
        usage = Usage(
            input_tokens=max(0, int(u.get("input_tokens") or 0) - cached),
            output_tokens=int(u.get("output_tokens") or 0),
            cache_read_tokens=cached,
            reasoning_tokens=int((u.get("output_tokens_details") or {}).get("reasoning_tokens") or 0),
        )
        reason: StopReason = "tool_use" if self._index else "end_turn"
        if resp.get("status") == "incomplete":
            why = (resp.get("incomplete_details") or {}).get("reason", "")
            reason = _INCOMPLETE.get(why, "max_tokens")
        return [UsageReport(usage), MessageStop(reason, self.model)]


async def parse_stream(chunks: AsyncIterable[bytes], who: ApiIdentity) -> AsyncIterator[StreamEvent]:
    state = ResponsesStreamState(who)
    async for ev in drive_sse(chunks, state):
        yield ev
    if not state.stopped:
        raise ConnectionDropped(f"the {who.label} stream ended before response.completed")


class OpenAIResponsesProvider(HttpProvider):
    """Streams `POST {base}/responses`; `base_url` defaults to OPENAI_BASE_URL's usual value."""

    name = "openai-responses"

    def __init__(self, cfg: ProviderConfig, *, client: HttpClient | None = None) -> None:
        self.cfg = cfg
        self.base_url = (cfg.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._client = client or client_for(cfg)
        self.who = ApiIdentity("OpenAI", "OPENAI_API_KEY", (cfg.api_key,))

    def headers(self) -> dict[str, str]:
        h = {"accept": "text/event-stream"}
        if self.cfg.api_key:
            h["authorization"] = f"Bearer {self.cfg.api_key}"
        h.update(self.cfg.options.get("extra_headers") or {})
        return h

    def check_credentials(self) -> None:
        """Raise AuthError before any request when the endpoint needs a key we do not have (a loopback server
        may take none)."""
        if not self.cfg.api_key and not is_loopback_url(self.base_url):
            raise missing_key("OPENAI_API_KEY")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.check_credentials()
        resp = await open_stream(
            self._client,
            join_url(self.base_url, "/responses"),
            headers=self.headers(),
            body=build_body(request, self.cfg.options),
            who=self.who,
        )
        async for ev in events_of(resp, lambda body: parse_stream(body, self.who)):
            yield ev

