"""Ollama's native API (`POST /api/chat`, NDJSON) over the lean HTTP client.

Why native rather than `/v1`: `num_ctx` can be set per request (Ollama's small default context silently
truncates long prompts), `think` is honoured, and `/api/show` tells the model's real context window.
Tool calls arrive whole, without ids: we make synthetic ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

from agentcli.errors import AgentCliError, BadRequestError, ContextOverflowError, StreamError
from agentcli.llm.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from agentcli.llm.stream import (
    MessageStop,
    Notice,
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
from agentcli.net.errors import (
    ApiIdentity,
    ConnectError,
    ConnectionDropped,
    HostNotFound,
    ProxyFailure,
    TlsError,
    error_from_event,
)
from agentcli.net.http import HttpClient
from agentcli.net.sse import NDJSONDecoder
from agentcli.providers.base import HttpProvider, ModelRequest, ProviderConfig
from agentcli.providers.coalesce import DeltaSink, drive, handle_batch
from agentcli.providers.profiles import normalize_host
from agentcli.providers.textcalls import extract_text_calls

DEFAULT_HOST = "http://127.0.0.1:11434"
# Memory for the KV cache grows with num_ctx; models advertising 128k+ would not load on most machines.
DEFAULT_MAX_NUM_CTX = 32768
_DONE_REASONS: dict[str, StopReason] = {"stop": "end_turn", "length": "max_tokens"}


def ollama_base_url(configured: str | None, env: dict[str, str] | None = None) -> str:
    """The server root from config or `OLLAMA_HOST` (`0.0.0.0:11434` → `http://127.0.0.1:11434`)."""
    env_host = (env if env is not None else os.environ).get("OLLAMA_HOST", "")
    url = normalize_host(configured or env_host or DEFAULT_HOST)
    for suffix in ("/api", "/v1"):
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    return url


def to_ollama_messages(system: str, messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Normalized transcript → Ollama chat messages. Thinking from any provider is dropped (not needed
    for the next turn); tool results become `tool` messages naming their tool."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    names: dict[str, str] = {}
    for m in messages:
        text = "".join(b.text for b in m.content if isinstance(b, TextBlock))
        if m.role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": text}
            calls = [b for b in m.content if isinstance(b, ToolUseBlock)]
            if calls:
                names.update((c.id, c.name) for c in calls)
                msg["tool_calls"] = [{"function": {"name": c.name, "arguments": c.input}} for c in calls]
            out.append(msg)
            continue
        for b in m.content:
            if isinstance(b, ToolResultBlock):
                tool = {"role": "tool", "content": b.content, "tool_name": names.get(b.tool_use_id, "")}
                out.append(tool)
        images = [b.data for b in m.content if isinstance(b, ImageBlock)]
        if text or images:
            user: dict[str, Any] = {"role": "user", "content": text}
            if images:
                user["images"] = images
            out.append(user)
    return out


def build_body(request: ModelRequest, num_ctx: int | None, options: dict[str, Any]) -> dict[str, Any]:
    model_opts: dict[str, Any] = {"num_predict": request.max_tokens}
    if num_ctx:
        model_opts["num_ctx"] = num_ctx
    if request.temperature is not None:
        model_opts["temperature"] = request.temperature
    body: dict[str, Any] = {
        "model": request.model,
        "messages": to_ollama_messages(request.system, request.messages),
        "stream": True,
        "options": model_opts,
    }
    if request.tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.input_schema or {"type": "object"}}}
            for t in request.tools
        ]
    think = options.get("think")
    if think is None and request.effort is not None:
        # gpt-oss takes a level; other thinking models only on/off.
        think = request.effort if "gpt-oss" in request.model else True
    if think is not None:
        body["think"] = think
    if options.get("keep_alive") is not None:
        body["keep_alive"] = options["keep_alive"]
    body.update(request.extra)
    return body


class ChatStreamParser:
    """One `/api/chat` stream: NDJSON objects in, StreamEvents out."""

    def __init__(self, new_id: Any = None) -> None:
        self._new_id = new_id or (lambda: f"call_{os.urandom(12).hex()}")
        self._calls = 0
        self.done = False
        self.output_seen = False
        self.sink = DeltaSink()

    def feed_lines(self, lines: list[str]) -> AgentCliError | None:
        """Collect the events of one read's lines in `sink`; return the error that stopped them, if any."""
        return handle_batch(lines, self._feed_obj, self._feed_text, "Ollama")

    def _feed_text(self, line: str) -> None:
        self.sink.extend(self.feed(json.loads(line)))

    def _feed_obj(self, obj: dict[str, Any]) -> None:
        msg = obj.get("message")
        if msg and "error" not in obj and not obj.get("done") and not msg.get("thinking") \
                and not msg.get("tool_calls") and msg.get("content").__class__ is str:
            if msg["content"]:  # the hot path, one line per token: text only
                self.output_seen = True
                self.sink.text(msg["content"])
            return
        self.sink.extend(self.feed(obj))

    def feed(self, obj: Any) -> list[StreamEvent]:
        if not isinstance(obj, dict):
            raise StreamError("Ollama sent something that is not a JSON object")
        if "error" in obj:
            raise error_from_event(None, str(obj["error"]), ApiIdentity("Ollama"))
        out: list[StreamEvent] = []
        msg = obj.get("message") or {}
        if msg.get("thinking"):
            out.append(ThinkingDelta(msg["thinking"]))
        if msg.get("content"):
            out.append(TextDelta(msg["content"]))
        for call in msg.get("tool_calls") or ():
            fn = call.get("function") or {}
            args = fn.get("arguments")
            text = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
            i = self._calls
            self._calls += 1
            out += [ToolCallStart(i, call.get("id") or self._new_id(), fn.get("name", "")),
                    ToolCallDelta(i, text), ToolCallEnd(i)]
        if out:
            self.output_seen = True
        if obj.get("done"):
            self.done = True
            usage = Usage(int(obj.get("prompt_eval_count") or 0), int(obj.get("eval_count") or 0))
            reason = _DONE_REASONS.get(obj.get("done_reason") or "stop", "end_turn")
            if self._calls and reason == "end_turn":
                reason = "tool_use"
            out += [UsageReport(usage), MessageStop(reason, obj.get("model"))]
        return out


def context_from_show(show: dict[str, Any]) -> tuple[int | None, int | None]:
    """(the model's trained context length, the num_ctx its Modelfile sets) from an `/api/show` answer."""
    real = None
    for key, value in (show.get("model_info") or {}).items():
        if key.endswith(".context_length") and isinstance(value, int):
            real = value
    modelfile = None
    for line in str(show.get("parameters") or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit():
            modelfile = int(parts[1])
    return real, modelfile


def choose_num_ctx(real: int | None, modelfile: int | None, options: dict[str, Any]) -> int | None:
    """The num_ctx we send: the user's setting, else the Modelfile's, else the real window up to a cap."""
    if options.get("num_ctx"):
        return int(options["num_ctx"])
    if modelfile:
        return modelfile
    if real:
        return min(real, int(options.get("max_num_ctx") or DEFAULT_MAX_NUM_CTX))
    return None


def estimate_tokens(body: dict[str, Any]) -> int:
    """A rough prompt size (4 characters a token) to warn before Ollama truncates silently."""
    return len(json.dumps(body.get("messages", ()), ensure_ascii=False)) // 4 + len(
        json.dumps(body.get("tools", ()))
    ) // 4


class OllamaProvider(HttpProvider):
    """The native Ollama adapter. Options: `num_ctx`, `max_num_ctx`, `think`, `keep_alive`,
    `text_tool_calls` (default True)."""

    name = "ollama"

    def __init__(self, cfg: ProviderConfig, *, client: HttpClient | None = None) -> None:
        self.cfg = cfg
        self.base_url = ollama_base_url(cfg.base_url)
        self._client = client or client_for(cfg)
        self.who = ApiIdentity("Ollama", None, (cfg.api_key,))
        self._contexts: dict[str, tuple[int | None, int | None]] = {}
        self._capabilities: dict[str, frozenset[str] | None] = {}
        self._warned: set[str] = set()  # each warning once per session
        self._fresh: list[str] = []  # warnings of the request being prepared, yielded as Notice events

    def headers(self) -> dict[str, str]:
        # Ollama itself takes no key; a proxy in front of it (or ollama.com) may want one.
        return {"authorization": f"Bearer {self.cfg.api_key}"} if self.cfg.api_key else {}

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            resp = await open_stream(self._client, join_url(self.base_url, path), headers=self.headers(),
                                     body=body, who=self.who, method=method)
        except ConnectError as err:
            if not isinstance(err, TlsError | ProxyFailure | HostNotFound):
                err.hint = f"is Ollama running? start it with `ollama serve`, or set OLLAMA_HOST ({self.base_url})"
            raise
        except BadRequestError as err:
            if err.status == 404 and body and body.get("model"):
                err.hint = f"pull the model first: ollama pull {body['model']}"
            raise
        return resp

    async def show(self, model: str) -> dict[str, Any]:
        resp = await self._call("POST", "/api/show", {"model": model})
        data = await resp.json()
        return data if isinstance(data, dict) else {}

    async def context_window(self, model: str) -> tuple[int | None, int | None]:
        """(trained context length, Modelfile num_ctx) for `model`, asked once per provider."""
        if model not in self._contexts:
            show = await self.show(model)
            self._contexts[model] = context_from_show(show)
            caps = show.get("capabilities")
            self._capabilities[model] = frozenset(map(str, caps)) if isinstance(caps, list) else None
        return self._contexts[model]

    async def prepare(self, request: ModelRequest) -> dict[str, Any]:
        """The request body, with num_ctx fitted to the model; warns (once) or fails before truncation."""
        opts = self.cfg.options
        real, modelfile = (None, None) if opts.get("num_ctx") else await self.context_window(request.model)
        num_ctx = choose_num_ctx(real, modelfile, opts)
        body = build_body(request, num_ctx, opts)
        caps = self._capabilities.get(request.model)
        if caps is not None and "thinking" not in caps and opts.get("think") is None:
            body.pop("think", None)  # --effort on a model that cannot think: Ollama would refuse the request
        prompt = estimate_tokens(body)
        if real and prompt + min(request.max_tokens, real // 4) > real:
            raise ContextOverflowError(
                f"the prompt (~{prompt} tokens) leaves no room for a reply in the context window of "
                f"{request.model} ({real} tokens)",
                hint="compact the conversation (/compact) or use a model with a larger window",
            )
        # Ollama drops the start of a prompt that does not fit num_ctx, silently; keep 1k tokens for the reply.
        if num_ctx and prompt + min(request.max_tokens, 1024) > num_ctx:
            self._warn(
                f"the prompt (~{prompt} tokens) nearly fills num_ctx={num_ctx}; Ollama would truncate it silently",
                f"set providers.ollama.num_ctx (the model supports {real or 'an unknown number of'} tokens)",
            )
        return body

    def _warn(self, message: str, hint: str) -> None:
        text = f"{message} — {hint}"
        if text not in self._warned:
            self._warned.add(text)
            self._fresh.append(text)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The reply; unless `text_tool_calls` is off, tool calls written as text and `<think>` tags in the
        content become real events (small local models do both)."""
        events = self._stream_raw(request)
        if self.cfg.options.get("text_tool_calls", True):
            events = extract_text_calls(events, request)
        async for ev in events:
            yield ev

    async def _stream_raw(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        body = await self.prepare(request)
        fresh, self._fresh = self._fresh, []
        for text in fresh:
            yield Notice("warning", text)
        resp = await self._call("POST", "/api/chat", body)
        parser = ChatStreamParser()
        decoder = NDJSONDecoder()
        async for ev in events_of(resp, lambda chunks: drive(chunks, parser.feed_lines, parser.sink, decoder.feed_lines,
                                                               decoder.flush_lines)):
            yield ev
        if not parser.done:
            raise ConnectionDropped("the Ollama stream ended before the reply was complete")
