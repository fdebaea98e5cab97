"""Tool calls and reasoning that local models write as text, turned into real stream events.

Small local models often ignore native tool calling and write
`<tool_call>{"name": …, "arguments": …}</tool_call>`, `<function=name>{…}</function>` or a bare
`{"name": "Read", "arguments": {…}}`, and wrap reasoning in `<think>…</think>`. `TextCallFilter` sits
behind an adapter's stream and rewrites those into `ToolCallStart/Delta/End` and `ThinkingDelta`, while
streaming, whatever the chunking. Anything that does not parse stays text: the filter never raises.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from agentcli.llm.stream import (
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

if TYPE_CHECKING:
    from agentcli.providers.base import ModelRequest, Provider

_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_CALL_OPEN, _CALL_CLOSE = "<tool_call>", "</tool_call>"
_FUNC_OPEN, _FUNC_CLOSE = "<function=", "</function>"
_OPEN_TAGS = (_THINK_OPEN, _CALL_OPEN, _FUNC_OPEN)
# A call or bare JSON object longer than this is not a tool call we can wait for: give it back as text.
MAX_HELD_CHARS = 256_000

_FUNC_HEAD = re.compile(r"<function=([\w.\-:]+)>")
_PARAM = re.compile(r"<parameter=([\w.\-:]+)>\n?(.*?)\n?</parameter>", re.S)

_FIRST_TOKEN = re.compile(r"\{\s*(\S)")

Mode = Literal["text", "think", "call", "func", "json"]


def _partial_suffix(buf: str, tag: str) -> int:
    """Length of the longest suffix of `buf` that is a proper prefix of `tag`."""
    for n in range(min(len(tag) - 1, len(buf)), 0, -1):
        if buf.endswith(tag[:n]):
            return n
    return 0


def _arguments(obj: dict[str, Any]) -> dict[str, Any] | None:
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    return args if isinstance(args, dict) else None


def _parse_json_call(text: str) -> tuple[str, dict[str, Any]] | None:
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        obj = obj["function"]
    name = obj.get("name")
    args = _arguments(obj)
    if not isinstance(name, str) or not name or args is None:
        return None
    return name, args


def _parse_function_tag(raw: str) -> tuple[str, dict[str, Any]] | None:
    """`<function=NAME>{json}</function>` or Qwen-coder's `<function=NAME><parameter=k>v</parameter>…`."""
    head = _FUNC_HEAD.match(raw)
    if head is None:
        return None
    body = raw[head.end() :]
    if body.endswith(_FUNC_CLOSE):
        body = body[: -len(_FUNC_CLOSE)]
    body = body.strip()
    if not body:
        return head.group(1), {}
    if body.startswith("{"):
        try:
            args = json.loads(body)
        except ValueError:
            return None
        return (head.group(1), args) if isinstance(args, dict) else None
    params = _PARAM.findall(body)
    if not params or _PARAM.sub("", body).strip():
        return None
    out: dict[str, Any] = {}
    for key, value in params:
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return head.group(1), out


def _parse_tagged(inner: str) -> tuple[str, dict[str, Any]] | None:
    inner = inner.strip()
    if inner.startswith(_FUNC_OPEN):
        return _parse_function_tag(inner)
    return _parse_json_call(inner)


def _json_object_end(buf: str, start: int, state: list[int]) -> int:
    """Scan a JSON object from `start`; `state` = [depth, in_string, escaped] carries across calls.
    Returns the index just past the closing brace, -1 when more input is needed."""
    depth, in_str, esc = state
    for i in range(start, len(buf)):
        c = buf[i]
        if in_str:
            if esc:
                esc = 0
            elif c == "\\":
                esc = 1
            elif c == '"':
                in_str = 0
        elif c == '"':
            in_str = 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                state[:] = [0, 0, 0]
                return i + 1
    state[:] = [depth, in_str, esc]
    return -1


class TextCallFilter:
    """Rewrites text-form tool calls and `<think>` blocks in a provider stream.

    `feed(event)` returns the events to pass on now; `finish()` flushes what is held at the end of the stream
    (a `MessageStop` fed in triggers it too, and becomes `tool_use` when calls were extracted).
    Bare JSON objects count as calls only when their `name` is one of `tool_names` and they start a line.
    """

    def __init__(
        self, tool_names: Iterable[str] = (), *, id_factory: Callable[[int], str] | None = None
    ) -> None:
        self._tools = frozenset(tool_names)
        prefix = os.urandom(4).hex()
        self._new_id = id_factory or (lambda n: f"call_{prefix}_{n}")
        self._buf = ""
        self._mode: Mode = "text"
        self._scan = 0
        self._json_state = [0, 0, 0]
        self._line_blank = True
        self._lstrip = False
        self._next_index = 0
        self._native: dict[int, int] = {}
        self._calls = 0
        self._out: list[StreamEvent] = []
        self._finished = False

    def feed(self, event: StreamEvent) -> list[StreamEvent]:
        self._out = []
        match event:
            case TextDelta(text):
                if self._mode == "text" and not self._buf and "<" not in text and (
                    "{" not in text or not self._tools
                ):
                    self._text(text)  # the common case: plain prose, nothing to hold back
                    return self._out
                self._buf += text
                while self._step():
                    pass
            case ToolCallStart(index, id_, name):
                self._native[index] = self._next_index
                self._next_index += 1
                self._out.append(ToolCallStart(self._native[index], id_, name))
            case ToolCallDelta(index, args):
                self._out.append(ToolCallDelta(self._native.get(index, index), args))
            case ToolCallEnd(index):
                self._out.append(ToolCallEnd(self._native.get(index, index)))
            case MessageStop(reason, model):
                out = self.finish()
                if self._calls and reason in ("end_turn", "stop_sequence"):
                    reason = "tool_use"
                return [*out, MessageStop(reason, model)]
            case _:
                self._out.append(event)
        return self._out

    def finish(self) -> list[StreamEvent]:
        if self._finished:
            return []
        self._finished = True
        self._out = []
        buf, self._buf = self._buf, ""
        if self._mode == "think":
            self._thinking(buf)
        elif self._mode == "call":
            inner = buf[len(_CALL_OPEN) :]
            inner = inner[: len(inner) - _partial_suffix(inner, _CALL_CLOSE)]
            self._call_or_text(_parse_tagged(inner), buf)
        elif self._mode == "func":
            self._call_or_text(_parse_function_tag(buf[: len(buf) - _partial_suffix(buf, _FUNC_CLOSE)]), buf)
        elif self._mode == "json":
            self._call_or_text(self._bare_call(buf), buf)
        else:
            self._text(buf)
        return self._out

    # ---- scanning -------------------------------------------------------------------------------------

    def _step(self) -> bool:
        """Consume what can be decided from the buffer; False when more input is needed."""
        if not self._buf:
            return False
        if self._mode == "text":
            return self._step_text()
        if self._mode == "think":
            return self._step_think()
        if self._mode == "json":
            return self._step_json()
        close = _CALL_CLOSE if self._mode == "call" else _FUNC_CLOSE
        return self._step_tagged(close)

    def _step_text(self) -> bool:
        buf = self._buf
        lt = buf.find("<")
        end = lt if lt >= 0 else len(buf)
        brace = self._bare_brace(buf, end)
        if brace >= 0:
            self._text(buf[:brace])
            self._enter("json", buf[brace:], 0)
            return True
        if lt < 0:
            self._text(buf)
            self._buf = ""
            return False
        self._text(buf[:lt])
        rest = buf[lt:]
        for tag, mode in ((_THINK_OPEN, "think"), (_CALL_OPEN, "call"), (_FUNC_OPEN, "func")):
            if rest.startswith(tag):
                if mode == "think":
                    self._enter("think", rest[len(tag) :], 0)
                    self._lstrip = True
                else:
                    self._enter(mode, rest, len(tag))  # type: ignore[arg-type]
                return True
        if any(tag.startswith(rest) for tag in _OPEN_TAGS):
            self._buf = rest
            return False
        self._text("<")
        self._buf = rest[1:]
        return True

    def _enter(self, mode: Mode, buf: str, scan: int) -> None:
        self._mode, self._buf, self._scan = mode, buf, scan

    def _bare_brace(self, buf: str, end: int) -> int:
        """Index of the first `{` before `end` that opens a line (only blanks before it), else -1."""
        if not self._tools:
            return -1
        p = buf.find("{", 0, end)
        while p >= 0:
            nl = buf.rfind("\n", 0, p)
            if not buf[nl + 1 : p].strip() and (nl >= 0 or self._line_blank):
                return p
            p = buf.find("{", p + 1, end)
        return -1

    def _step_think(self) -> bool:
        buf = self._buf
        idx = buf.find(_THINK_CLOSE)
        if idx >= 0:
            self._thinking(buf[:idx])
            self._enter("text", buf[idx + len(_THINK_CLOSE) :], 0)
            self._line_blank = self._lstrip = True
            return True
        keep = _partial_suffix(buf, _THINK_CLOSE)
        self._thinking(buf[: len(buf) - keep])
        self._buf = buf[len(buf) - keep :]
        return False

    def _step_tagged(self, close: str) -> bool:
        buf = self._buf
        idx = buf.find(close, max(self._scan - len(close), 0))
        if idx < 0:
            if len(buf) > MAX_HELD_CHARS:
                return self._give_up(MAX_HELD_CHARS)
            self._scan = len(buf)
            return False
        end = idx + len(close)
        raw = buf[:end]
        inner = raw[len(_CALL_OPEN) : -len(close)]
        parsed = _parse_tagged(inner) if self._mode == "call" else _parse_function_tag(raw)
        self._enter("text", buf[end:], 0)
        self._call_or_text(parsed, raw)
        return True

    def _step_json(self) -> bool:
        buf = self._buf
        if self._scan == 0:
            # Only an object whose first key is a string can be a call: decide early so prose keeps streaming.
            first = _FIRST_TOKEN.match(buf)
            if first is None:
                return False
            if first.group(1) != '"':
                return self._give_up(1)
        end = _json_object_end(buf, self._scan, self._json_state)
        if end < 0:
            if len(buf) > MAX_HELD_CHARS:
                self._json_state = [0, 0, 0]
                return self._give_up(MAX_HELD_CHARS)
            self._scan = len(buf)
            return False
        raw = buf[:end]
        self._enter("text", buf[end:], 0)
        self._call_or_text(self._bare_call(raw), raw)
        return True

    def _give_up(self, n: int) -> bool:
        raw = self._buf[:n]
        self._enter("text", self._buf[n:], 0)
        self._text(raw)
        return True

    def _bare_call(self, raw: str) -> tuple[str, dict[str, Any]] | None:
        parsed = _parse_json_call(raw)
        return parsed if parsed is not None and parsed[0] in self._tools else None

    # ---- output ---------------------------------------------------------------------------------------

    def _text(self, text: str) -> None:
        if self._lstrip:
            text = text.lstrip()
            if not text:
                return
            self._lstrip = False
        if not text:
            return
        self._out.append(TextDelta(text))
        tail = text[text.rfind("\n") + 1 :]
        if tail.strip():
            self._line_blank = False
        elif "\n" in text:
            self._line_blank = True

    def _thinking(self, text: str) -> None:
        if self._lstrip:
            text = text.lstrip()
            if not text:
                return
            self._lstrip = False
        if text:
            self._out.append(ThinkingDelta(text))

    def _call_or_text(self, parsed: tuple[str, dict[str, Any]] | None, raw: str) -> None:
        if parsed is None:
            self._text(raw)
            return
        name, args = parsed
        index = self._next_index
        self._next_index += 1
        self._calls += 1
        self._out.append(ToolCallStart(index, self._new_id(index), name))
        self._out.append(ToolCallDelta(index, json.dumps(args, ensure_ascii=False)))
        self._out.append(ToolCallEnd(index))
        self._line_blank = self._lstrip = True


async def extract_text_calls(events: AsyncIterator[StreamEvent], request: ModelRequest) -> AsyncIterator[StreamEvent]:
    """`events` with tool calls written as text (for the request's tools) and `<think>` tags made real events."""
    f = TextCallFilter(t.name for t in request.tools)
    async for ev in events:
        for out in f.feed(ev):
            yield out
    for out in f.finish():
        yield out


class TextCallProvider:
    """Wraps a provider so text-form tool calls and `<think>` tags in its stream become real events
    (the factory applies it when a profile sets `text_tool_calls`)."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for ev in extract_text_calls(self.inner.stream(request), request):
            yield ev

    async def aclose(self) -> None:
        await self.inner.aclose()
