"""Per-read stream work: delta merging, batched JSON decoding, and the cached built-in TOML data."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.events import (
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    UsageReport,
)
from agentcli.errors import AgentCliError, RateLimitError, StreamError
from agentcli.llm.messages import Usage
from agentcli.net.errors import ApiIdentity
from agentcli.net.sse import decode_json_batch
from agentcli.providers import anthropic, gemini, openai_chat, openai_responses
from agentcli.providers.coalesce import DeltaSink, handle_batch
from agentcli.providers.datafile import load_builtin_toml


def test_runs_of_pieces_merge_but_the_first_piece_of_a_block_stands_alone() -> None:
    sink = DeltaSink()
    for piece in ("a", "b", "c"):
        sink.text(piece)
    assert sink.take() == [TextDelta("a"), TextDelta("bc")]
    sink.text("d")
    sink.text("e")
    assert sink.take() == [TextDelta("de")], "the block goes on across reads: no new first piece"
    assert sink.take() == []


def test_kinds_and_calls_are_kept_apart_in_order() -> None:
    sink = DeltaSink()
    sink.thinking("x")
    sink.thinking("y")
    sink.text("t")
    sink.add(ToolCallStart(0, "c0", "Read"))
    sink.arguments(0, '{"a"')
    sink.arguments(0, ":")
    sink.arguments(0, "1}")
    sink.arguments(1, "{}")
    sink.add(UsageReport(Usage(1, 2)))
    sink.text("u")
    sink.text("v")
    sink.add(MessageStop("end_turn"))
    assert sink.take() == [
        ThinkingDelta("x"), ThinkingDelta("y"), TextDelta("t"), ToolCallStart(0, "c0", "Read"),
        ToolCallDelta(0, '{"a"'), ToolCallDelta(0, ":1}"), ToolCallDelta(1, "{}"), UsageReport(Usage(1, 2)),
        TextDelta("u"), TextDelta("v"), MessageStop("end_turn"),
    ]


def test_add_merges_delta_events_like_pieces() -> None:
    sink = DeltaSink()
    sink.extend([TextDelta("a"), TextDelta("b"), TextDelta("c"), ToolCallDelta(2, "x"), ToolCallDelta(2, "y")])
    assert sink.take() == [TextDelta("a"), TextDelta("bc"), ToolCallDelta(2, "x"), ToolCallDelta(2, "y")]


def test_decode_json_batch() -> None:
    assert decode_json_batch(['{"a":1}', '{"b":[2]}']) == [{"a": 1}, {"b": [2]}]
    assert decode_json_batch(['{"a":1}']) == [{"a": 1}]
    assert decode_json_batch([]) == []
    assert decode_json_batch(['{"a":1}', '{"b":']) is None  # one is not JSON
    assert decode_json_batch(['{"a":1},{"c":2}', '{"b":2}']) is None  # two values in one text
    assert decode_json_batch(["[1]", '{"b":2}']) is None  # not an object
    assert decode_json_batch(['{"a":1} x']) is None


def test_handle_batch_returns_the_error_after_the_events_before_it() -> None:
    seen: list[Any] = []

    def one_obj(obj: dict[str, Any]) -> None:
        if obj.get("boom"):
            raise RateLimitError("slow down")
        seen.append(obj["n"])

    def one_text(text: str) -> None:
        one_obj(json.loads(text))

    assert handle_batch(['{"n":1}', '{"n":2}'], one_obj, one_text, "X") is None
    err = handle_batch(['{"n":3}', '{"boom":1}', '{"n":4}'], one_obj, one_text, "X")
    assert isinstance(err, RateLimitError) and seen == [1, 2, 3]
    err = handle_batch(['{"n":5}', '{"x":1}'], one_obj, one_text, "X")
    assert isinstance(err, StreamError) and "malformed event from X" in err.one_line() and '{"x":1}' in str(err)
    err = handle_batch(['{"n":6}', "not json"], one_obj, one_text, "X")  # batch fails: one by one
    assert isinstance(err, StreamError) and seen == [1, 2, 3, 5, 6]


async def _one_chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _collect(stream: AsyncIterator[StreamEvent]) -> tuple[list[StreamEvent], AgentCliError | None]:
    async def run() -> tuple[list[StreamEvent], AgentCliError | None]:
        got: list[StreamEvent] = []
        try:
            async for ev in stream:
                got.append(ev)
        except AgentCliError as err:
            return got, err
        return got, None

    return asyncio.run(run())


def _sse(*objs: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)


def test_adapters_merge_a_read_and_keep_the_text() -> None:
    """Everything in one read: every adapter gives the first piece, then the rest as one delta."""
    pieces = [f"w{i} " for i in range(50)]
    text = "".join(pieces)
    who = ApiIdentity("X")
    a_raw = _sse({"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 1}}},
                 *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
                   for p in pieces), {"type": "message_stop"})
    o_raw = _sse(*({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces),
                 {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + b"data: [DONE]\n\n"
    r_raw = _sse(*({"type": "response.output_text.delta", "delta": p} for p in pieces),
                 {"type": "response.completed", "response": {"model": "m", "usage": {}}})
    g_raw = _sse(*({"candidates": [{"content": {"parts": [{"text": p}]}}]} for p in pieces),
                 {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]})
    for stream in (anthropic.parse_stream(_one_chunk(a_raw), who), openai_chat.parse_stream(_one_chunk(o_raw), who),
                   openai_responses.parse_stream(_one_chunk(r_raw), who),
                   gemini.parse_stream(_one_chunk(g_raw), who)):
        events, err = _collect(stream)
        deltas = [e.text for e in events if isinstance(e, TextDelta)]
        assert err is None and deltas == [pieces[0], text[len(pieces[0]):]], events
        assert isinstance(events[-1], MessageStop)


def test_an_error_event_comes_after_the_text_before_it() -> None:
    raw = _sse({"type": "message_start", "message": {"model": "m", "usage": {}}},
               {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}},
               {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "b"}},
               {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
               {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "never"}})
    events, err = _collect(anthropic.parse_stream(_one_chunk(raw), ApiIdentity("Anthropic")))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["a", "b"]
    assert err is not None and err.code == "overloaded"


def test_a_malformed_event_in_a_read_is_reported_after_the_good_ones() -> None:
    raw = _sse({"choices": [{"index": 0, "delta": {"content": "ok"}}]}) + b"data: {oops\n\n"
    events, err = _collect(openai_chat.parse_stream(_one_chunk(raw), ApiIdentity("X")))
    assert events == [TextDelta("ok")] and isinstance(err, StreamError) and "{oops" in str(err)


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "data.toml"
    path.write_text('[models.a]\nprovider = "x"\ncontext = 10\nprice = 1.5\n')
    return path


def test_builtin_toml_is_cached_and_reparsed_when_edited(data_file: Path) -> None:
    first = load_builtin_toml(data_file)
    assert first == {"models": {"a": {"provider": "x", "context": 10, "price": 1.5}}}
    caches = list((data_file.parent / "__pycache__").glob("data.toml.*.json"))
    assert len(caches) == 1 and json.loads(caches[0].read_text()) == first
    assert load_builtin_toml(data_file) == first
    data_file.write_text('[models.b]\nprovider = "y"\n')
    os.utime(data_file, ns=(1, 1))  # a different mtime even on a coarse clock
    assert load_builtin_toml(data_file) == {"models": {"b": {"provider": "y"}}}
    assert len(list((data_file.parent / "__pycache__").glob("data.toml.*.json"))) == 1, "old caches are removed"


def test_builtin_toml_without_a_writable_cache_dir(data_file: Path) -> None:
    (data_file.parent / "__pycache__").write_text("a file where the directory would go")
    assert load_builtin_toml(data_file)["models"]["a"]["provider"] == "x"
