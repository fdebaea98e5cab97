from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from agentcli.net.sse import NDJSONDecoder, SSEDecoder, SSEEvent, aiter_ndjson, aiter_sse

STREAM = (
    ": a comment\r\n"
    "event: message_start\r\n"
    "data: {\"a\": \"é😀\"}\r\n"
    "\r\n"
    "data: line one\n"
    "data: line two\n"
    "id: 7\n"
    "\n"
    "event: ping\r"
    "data:nospace\r"
    "\r"
    "retry: 100\n"
    "data: [DONE]\n\n"
).encode()

EXPECTED = [
    SSEEvent("message_start", '{"a": "é😀"}', None),
    SSEEvent("message", "line one\nline two", "7"),
    SSEEvent("ping", "nospace", "7"),
    SSEEvent("message", "[DONE]", "7"),
]


def _feed_all(pieces: list[bytes]) -> list[SSEEvent]:
    d = SSEDecoder()
    out: list[SSEEvent] = []
    for p in pieces:
        out += d.feed(p)
    return out + d.flush()


def test_whole_stream() -> None:
    assert _feed_all([STREAM]) == EXPECTED


def test_every_two_way_split() -> None:
    for i in range(len(STREAM) + 1):
        assert _feed_all([STREAM[:i], STREAM[i:]]) == EXPECTED, i


def test_byte_by_byte() -> None:
    assert _feed_all([STREAM[i : i + 1] for i in range(len(STREAM))]) == EXPECTED


def test_cr_then_lf_in_next_chunk_is_one_line_end() -> None:
    assert _feed_all([b"data: x\r", b"\ndata: y\r", b"\n\r", b"\n"]) == [SSEEvent("message", "x\ny")]


def test_flush_keeps_complete_data_drops_cut_line() -> None:
    assert _feed_all([b"data: whole\n"]) == [SSEEvent("message", "whole")]
    assert _feed_all([b"data: whole\n\ndata: {\"cut"]) == [SSEEvent("message", "whole")]


def test_empty_data_event_not_dispatched_but_event_name_reset() -> None:
    assert _feed_all([b"event: a\n\ndata: x\n\n"]) == [SSEEvent("message", "x")]


def test_ndjson_splits() -> None:
    raw = b'{"a": 1}\n\n{"b": "\xc3\xa9"}\r\n{"c": 3}'
    for i in range(len(raw) + 1):
        d = NDJSONDecoder()
        out = d.feed(raw[:i]) + d.feed(raw[i:]) + d.flush()
        assert out == [{"a": 1}, {"b": "é"}, {"c": 3}], i


def test_async_helpers() -> None:
    async def chunks(data: bytes) -> AsyncIterator[bytes]:
        for i in range(0, len(data), 7):
            yield data[i : i + 7]

    async def run() -> tuple[list[SSEEvent], list[object]]:
        sse = [e async for e in aiter_sse(chunks(STREAM))]
        nd = [o async for o in aiter_ndjson(chunks(b'{"x": 1}\n{"y": 2}\n'))]
        return sse, nd

    sse, nd = asyncio.run(run())
    assert sse == EXPECTED
    assert nd == [{"x": 1}, {"y": 2}]
