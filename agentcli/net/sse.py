"""Incremental decoders for streamed bodies: Server-Sent Events and newline-delimited JSON.

Both take bytes as they arrive (any split, even inside a UTF-8 character or between CR and LF) and return
whatever complete items those bytes finished.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, NamedTuple


class SSEEvent(NamedTuple):
    """One dispatched event: `event` defaults to "message"; multi-line data is joined with "\\n"."""

    event: str
    data: str
    id: str | None = None


_new_event = tuple.__new__  # builds an SSEEvent without NamedTuple's Python-level __new__


class SSEDecoder:
    """Server-Sent Events per the WHATWG spec: CR, LF or CRLF line ends; `:` comments; `retry` ignored."""

    __slots__ = ("_buf", "_data", "_event", "_id", "_skip_lf")

    def __init__(self) -> None:
        self._buf = b""
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if not chunk:
            return []
        if self._skip_lf:
            # The previous chunk ended in CR; an LF starting this one belongs to that CRLF.
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        buf = self._buf + chunk if self._buf else chunk
        if b"\r" in buf:
            self._skip_lf = buf.endswith(b"\r")
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        end = buf.rfind(b"\n")
        if end < 0:
            self._buf = buf
            return []
        self._buf = buf[end + 1 :]
        return self._process(buf[:end].decode("utf-8", "replace").split("\n"))

    def _process(self, lines: list[str]) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        data = self._data
        for line in lines:
            # Fast paths first: at one event per token this loop runs tens of thousands of times.
            if line[:6] == "data: ":
                data.append(line[6:])
            elif not line:
                if data:
                    text = data[0] if len(data) == 1 else "\n".join(data)
                    out.append(_new_event(SSEEvent, (self._event or "message", text, self._id)))
                    data.clear()
                self._event = ""
            elif line[:7] == "event: ":
                self._event = line[7:]
            elif line[0] != ":":
                self._field(line)
        return out

    def _field(self, line: str) -> None:
        name, sep, value = line.partition(":")
        if sep and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value

    def flush(self) -> list[SSEEvent]:
        """At end of stream: an unterminated last line is dropped (it may be cut short), but complete
        data lines still waiting for their blank line are dispatched."""
        self._buf = b""
        return self._process([""])


class NDJSONDecoder:
    """Newline-delimited JSON: one object per non-blank line."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, chunk: bytes) -> list[Any]:
        return [json.loads(line) for line in self.feed_lines(chunk)]

    def flush(self) -> list[Any]:
        return [json.loads(line) for line in self.flush_lines()]

    def feed_lines(self, chunk: bytes) -> list[str]:
        """The complete non-blank lines of what has arrived, as text, not yet decoded (see `decode_json_batch`)."""
        buf = self._buf + chunk if self._buf else chunk
        end = buf.rfind(b"\n")
        if end < 0:
            self._buf = buf
            return []
        self._buf = buf[end + 1 :]
        return [line for line in buf[:end].decode("utf-8", "replace").split("\n") if line.strip()]

    def flush_lines(self) -> list[str]:
        rest, self._buf = self._buf, b""
        return [rest.decode("utf-8", "replace")] if rest.strip() else []


async def aiter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SSEEvent]:
    decoder = SSEDecoder()
    async for chunk in chunks:
        for ev in decoder.feed(chunk):
            yield ev
    for ev in decoder.flush():
        yield ev


async def aiter_ndjson(chunks: AsyncIterable[bytes]) -> AsyncIterator[Any]:
    decoder = NDJSONDecoder()
    async for chunk in chunks:
        for obj in decoder.feed(chunk):
            yield obj
    for obj in decoder.flush():
        yield obj


_decode_one = json.JSONDecoder().raw_decode


def decode_json_batch(texts: list[str]) -> list[Any] | None:
    """The JSON objects in `texts` (one per text), decoded with one parser call for the whole list: at one
    event per token the per-call cost is most of the decoding. None when that cannot be trusted (a text that
    is not exactly one JSON object) — the caller then decodes one by one and reports the bad one.

    Event data that is malformed in a way that only parses when joined (`{"a":1` + `"b":2}`) could be read as
    different events instead of failing; streams from the APIs we speak never contain such data."""
    if len(texts) == 1:
        try:
            obj, end = _decode_one(texts[0])
        except ValueError:
            return None
        return [obj] if end == len(texts[0]) and isinstance(obj, dict) else None
    try:
        objs: list[Any] = json.loads("[" + ",".join(texts) + "]")
    except ValueError:
        return None
    if len(objs) != len(texts):
        return None
    for obj in objs:
        if obj.__class__ is not dict:
            return None
    return objs


_raw_decode = json.JSONDecoder().raw_decode


def loads_event(data: str) -> Any:
    """One event's JSON: json.loads without its two whitespace regex passes (measurable at one event per token)."""
    try:
        return _raw_decode(data)[0]
    except ValueError:
        return json.loads(data)
