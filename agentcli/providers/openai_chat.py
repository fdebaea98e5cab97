"""OpenAI Chat Completions, streamed over the lean HTTP client; also any OpenAI-compatible server.

ProviderConfig: `api_key` (OPENAI_API_KEY; optional for a loopback base URL), `base_url` (OPENAI_BASE_URL,
default https://api.openai.com/v1). Quirks are options, so profiles (llama.cpp, vLLM, Groq …) are data:

    include_usage          send stream_options.include_usage (default True)
    max_tokens_field       "max_completion_tokens" (default for api.openai.com) or "max_tokens" (elsewhere)
    reasoning_fields       delta keys carrying thinking text (default ["reasoning_content", "reasoning"])
    send_reasoning_effort  send reasoning_effort when the request has an effort (default True)
    system_role            "system" (default) or "developer"
    key_env, label         for messages: which env var holds the key, what to call the provider
    require_key            True/False to override "a key is needed unless the base URL is loopback"
    extra_headers, extra_body
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from agentcli.errors import AgentCliError, StreamError
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
)
from agentcli.net.api import client_for, events_of, join_url, open_stream
from agentcli.net.errors import ApiIdentity, ConnectionDropped, error_from_event
from agentcli.net.http import HttpClient, is_loopback
from agentcli.net.sse import loads_event
from agentcli.providers.base import HttpProvider, ModelRequest, ProviderConfig, missing_key
from agentcli.providers.coalesce import DeltaSink, drive_sse, handle_batch

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_FINISH: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAIChatProvider(HttpProvider):
    """Streams `POST {base}/chat/completions` and yields normalized `StreamEvent`s."""

    name = "openai"

    def __init__(self, cfg: ProviderConfig, *, client: HttpClient | None = None) -> None:
        self.cfg = cfg
        self.options = cfg.options
        self.base_url = (cfg.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._host = (urlsplit(self.base_url).hostname or "").lower()
        self._client = client or client_for(cfg)
        self.key_env: str = self.options.get("key_env", "OPENAI_API_KEY")
        self.who = ApiIdentity(self.options.get("label", "OpenAI"), self.key_env, (cfg.api_key,))

    def headers(self) -> dict[str, str]:
        h = {"accept": "application/json"}
        if self.cfg.api_key:
            h["authorization"] = f"Bearer {self.cfg.api_key}"
        h.update(self.options.get("extra_headers") or {})
        return h

    def check_credentials(self) -> None:
        """Raise AuthError before any request when the endpoint needs a key we do not have."""
        required = self.options.get("require_key")
        if required is None:
            required = not is_loopback(self._host)
        if required and not self.cfg.api_key:
            raise missing_key(self.key_env)

    def build_body(self, req: ModelRequest) -> dict[str, Any]:
        o = self.options
        body: dict[str, Any] = {
            "model": req.model,
            "messages": wire_messages(req.system, req.messages, o.get("system_role", "system"),
                                      o.get("tool_call_id", "any")),
            "stream": True,
        }
        if o.get("include_usage", True):
            body["stream_options"] = {"include_usage": True}
        default_field = "max_completion_tokens" if self._host == "api.openai.com" else "max_tokens"
        body[o.get("max_tokens_field") or default_field] = req.max_tokens
        if req.tools:
            body["tools"] = wire_tools(req.tools)
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.effort and o.get("send_reasoning_effort", True):
            body["reasoning_effort"] = req.effort
        body.update(o.get("extra_body") or {})
        body.update(req.extra)
        return body

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.check_credentials()
        body = self.build_body(request)
        resp = await open_stream(
            self._client,
            join_url(self.base_url, "/chat/completions"),
            headers=self.headers(),
            body=body,
            who=self.who,
        )
        fields = tuple(self.options.get("reasoning_fields") or ("reasoning_content", "reasoning"))
        chars = _prompt_chars(body)
        parsed = events_of(resp, lambda b: parse_stream(b, self.who, reasoning_fields=fields, prompt_chars=chars))
        async for ev in parsed:
            yield ev



# ---- request ----------------------------------------------------------------------------------------------


def wire_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description,
                                          "parameters": t.input_schema or {"type": "object", "properties": {}}}}
        for t in tools
    ]


def wire_id(call_id: str, style: str = "any") -> str:
    """A tool-call id in the shape the host accepts. "alnum9" hosts (Mistral) reject ids like `toolu_…` from
    another provider's turns: those are mapped, the same way for a call and its result, to 9 letters/digits."""
    if style != "alnum9" or (len(call_id) == 9 and call_id.isascii() and call_id.isalnum()):
        return call_id
    import hashlib

    digest = int.from_bytes(hashlib.sha256(call_id.encode()).digest()[:8], "big")
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    chars = []
    for _ in range(9):
        digest, r = divmod(digest, 62)
        chars.append(alphabet[r])
    return "".join(chars)


def wire_messages(
    system: str, messages: tuple[Message, ...], system_role: str = "system", id_style: str = "any"
) -> list[dict[str, Any]]:
    """Chat messages: tool results become `role: tool` messages right after the assistant's calls;
    thinking blocks (any provider's) are dropped; tool-call ids take the host's shape (`wire_id`)."""
    out: list[dict[str, Any]] = [{"role": system_role, "content": system}] if system else []
    for m in messages:
        if m.role == "assistant":
            text = "".join(b.text for b in m.content if isinstance(b, TextBlock))
            calls = [
                {"id": wire_id(b.id, id_style), "type": "function",
                 "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)}}
                for b in m.content if isinstance(b, ToolUseBlock)
            ]
            msg: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                msg["tool_calls"] = calls
            if text or calls:
                out.append(msg)
            continue
        for b in m.content:
            if isinstance(b, ToolResultBlock):
                content = b.content or "(no output)"
                if b.is_error and not content.lower().startswith("error"):
                    content = f"Error: {content}"
                out.append({"role": "tool", "tool_call_id": wire_id(b.tool_use_id, id_style), "content": content})
        parts: list[dict[str, Any]] = []
        for b in m.content:
            if isinstance(b, TextBlock) and b.text:
                parts.append({"type": "text", "text": b.text})
            elif isinstance(b, ImageBlock):
                parts.append({"type": "image_url", "image_url": {"url": f"data:{b.media_type};base64,{b.data}"}})
        if len(parts) == 1 and parts[0]["type"] == "text":
            out.append({"role": "user", "content": parts[0]["text"]})
        elif parts:
            out.append({"role": "user", "content": parts})
    return out


# ---- response stream --------------------------------------------------------------------------------------


async def parse_stream(
    chunks: AsyncIterable[bytes],
    who: ApiIdentity,
    *,
    reasoning_fields: tuple[str, ...] = ("reasoning_content", "reasoning"),
    prompt_chars: int = 0,
) -> AsyncIterator[StreamEvent]:
    """Chat Completions SSE bytes → StreamEvents, ending with MessageStop at `[DONE]` (or at the end of a
    stream that had a finish_reason; some local servers omit `[DONE]`). When the server reported no usage,
    an estimated UsageReport (about 4 characters per token) precedes MessageStop."""
    state = _ChatState(who, reasoning_fields, prompt_chars)
    async for ev in drive_sse(chunks, state):
        yield ev
    if not state.done:
        if state.finish is None:
            raise ConnectionDropped(f"the {who.label} stream ended before finish_reason")
        for ev in state.finish_events():
            yield ev


class _Call:
    __slots__ = ("args", "id", "name", "started")

    def __init__(self, id_: str) -> None:
        self.id = id_
        self.name = ""
        self.args: list[str] = []
        self.started = False


class _ChatState:
    def __init__(self, who: ApiIdentity, reasoning_fields: tuple[str, ...], prompt_chars: int = 0) -> None:
        self.who = who
        self.prompt_chars = prompt_chars
        self.output_chars = 0
        self.usage_seen = False
        self.reasoning_fields = reasoning_fields
        self.calls: dict[int, _Call] = {}
        self.finish: StopReason | None = None
        self.model: str | None = None
        self.done = False
        self._ids = itertools.count()
        self.sink = DeltaSink()

    def handle(self, data: str) -> list[StreamEvent]:
        if self.done:
            return []
        if data.strip() == "[DONE]":
            return self.finish_events()
        try:
            return self._handle(loads_event(data))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise StreamError(f"malformed event from {self.who.label}: {data[:200]!r}") from None

    def handle_all(self, datas: list[str]) -> AgentCliError | None:
        """Collect the events of one read's SSE data (`[DONE]` included) in `sink`; return the error that
        stopped them, if any."""
        done = bool(datas) and datas[-1].strip() == "[DONE]"
        err = handle_batch(datas[:-1] if done else datas, self._handle_obj, self._handle_text, self.who.label)
        if done and err is None:
            self.sink.extend(self.handle(datas[-1]))
        return err

    def _handle_text(self, data: str) -> None:
        self.sink.extend(self.handle(data))

    def _handle_obj(self, obj: dict[str, Any]) -> None:
        if self.done:
            return
        choices = obj.get("choices")
        if choices and len(choices) == 1 and not obj.get("usage") and not obj.get("error"):
            # The hot path, one event per token: a single choice whose delta holds only text.
            choice = choices[0]
            delta = choice.get("delta")
            if (delta and len(delta) == 1 and not choice.get("finish_reason") and not choice.get("index")
                    and delta.get("content").__class__ is str):
                content = delta["content"]
                if self.model is None:
                    self.model = obj.get("model")
                if content:
                    self.output_chars += len(content)
                    self.sink.text(content)
                return
        self.sink.extend(self._handle(obj))

    def _handle(self, obj: dict[str, Any]) -> list[StreamEvent]:
        err = obj.get("error")
        if err:
            etype = err.get("code") or err.get("type") if isinstance(err, dict) else None
            msg = err.get("message", "") if isinstance(err, dict) else str(err)
            raise error_from_event(str(etype) if etype else "api_error", str(msg), self.who)
        out: list[StreamEvent] = []
        self.model = obj.get("model") or self.model
        for choice in obj.get("choices") or ():
            if choice.get("index", 0) == 0:
                self._choice(choice, out)
        usage = obj.get("usage")
        if usage:
            self.usage_seen = True
            out.append(UsageReport(normalize_usage(usage)))
        return out

    def _choice(self, choice: dict[str, Any], out: list[StreamEvent]) -> None:
        delta = choice.get("delta") or {}
        for f in self.reasoning_fields:
            r = delta.get(f)
            if r and isinstance(r, str):
                self.output_chars += len(r)
                out.append(ThinkingDelta(r))
        content = delta.get("content")
        if content:
            self.output_chars += len(content)
            out.append(TextDelta(content))
        for tc in delta.get("tool_calls") or ():
            self._tool_delta(tc, out)
        finish = choice.get("finish_reason")
        if finish:
            self.finish = _FINISH.get(finish, "end_turn")
            self._end_calls(out)

    def _tool_delta(self, tc: dict[str, Any], out: list[StreamEvent]) -> None:
        idx = tc.get("index")
        if idx is None:  # servers that omit the index: a new id means a new call
            last = max(self.calls, default=None)
            new_id = tc.get("id")
            idx = last if last is not None and (not new_id or self.calls[last].id == new_id) else len(self.calls)
        call = self.calls.get(idx)
        if call is None:
            call = self.calls[idx] = _Call(tc.get("id") or f"call_{idx}_{next(self._ids)}")
        fn = tc.get("function") or {}
        if fn.get("name") and not call.started:
            call.name = fn["name"]
        args = fn.get("arguments")
        if isinstance(args, dict):  # a few servers send parsed arguments
            args = json.dumps(args, ensure_ascii=False)
        if not call.started and call.name:
            call.started = True
            out.append(ToolCallStart(idx, call.id, call.name))
            if call.args:
                out.append(ToolCallDelta(idx, "".join(call.args)))
        if args:
            self.output_chars += len(args)
            if call.started:
                out.append(ToolCallDelta(idx, args))
            else:
                call.args.append(args)

    def _end_calls(self, out: list[StreamEvent]) -> None:
        for idx in sorted(self.calls):
            call = self.calls.pop(idx)
            if call.started:
                out.append(ToolCallEnd(idx))
                self.finish = "tool_use" if self.finish == "end_turn" else self.finish

    def finish_events(self) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        self._end_calls(out)
        self.done = True
        if not self.usage_seen:
            estimate = Usage(input_tokens=(self.prompt_chars + 3) // 4, output_tokens=(self.output_chars + 3) // 4,
                             estimated=True)
            out.append(UsageReport(estimate))
        out.append(MessageStop(self.finish or "end_turn", self.model))
        return out


def _prompt_chars(body: dict[str, Any]) -> int:
    """Characters the model reads: message text and tool definitions (for estimates only)."""
    n = 0
    for m in body.get("messages", ()):
        c = m.get("content")
        n += len(c) if isinstance(c, str) else sum(len(p.get("text", "")) for p in c or () if isinstance(p, dict))
        n += sum(len(tc["function"]["arguments"]) for tc in m.get("tool_calls", ()))
    return n + len(json.dumps(body.get("tools", []))) if body.get("tools") else n


def normalize_usage(u: dict[str, Any]) -> Usage:
    """OpenAI counts cached prompt tokens inside prompt_tokens; we report them apart (Anthropic's way),
    so input + cache_read = prompt_tokens. Reasoning tokens stay inside output_tokens too."""
    prompt = int(u.get("prompt_tokens") or 0)
    details = u.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or u.get("prompt_cache_hit_tokens") or 0)
    reasoning = int((u.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=int(u.get("completion_tokens") or 0),
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
    )
