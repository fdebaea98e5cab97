"""Per-read stream work: fewer, larger deltas, and one JSON decode call per network read.

At one token per SSE event a 20,000-token reply is 20,000 events; each one costs every consumer (retry wrapper,
agent loop, message builder, printer) a Python-level step. Pieces that arrived in the same network read cannot be
shown apart anyway, so adapters collect a read's events in a `DeltaSink`, which merges consecutive text pieces,
thinking pieces, or argument pieces of one tool call into one event. Streaming stays per read, so
`--include-partial-messages` still shows text as it arrives.

The first piece of every block is always its own event (never merged with what follows), so a block streamed
in more than one piece gives more than one delta whatever the read sizes.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any, Protocol

from agentcli.errors import AgentCliError, StreamError
from agentcli.llm.stream import StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta
from agentcli.net.sse import SSEDecoder, decode_json_batch

# A block's key: "text", "thinking", or a tool call's index.
_Key = str | int
_TEXT = "text"
_THINKING = "thinking"


class DeltaSink:
    """Collects one stream's events read by read (`take()` after each read), merging runs of pieces."""

    __slots__ = ("_block", "_key", "_out", "_run")

    def __init__(self) -> None:
        self._out: list[StreamEvent] = []
        self._run: list[str] = []  # the pieces of the open run
        self._key: _Key | None = None  # the open run's block, None when no run is open
        self._block: _Key | None = None  # the block in progress (across reads), None after any other event

    def text(self, piece: str) -> None:
        if self._key == _TEXT:
            self._run.append(piece)
        else:
            self._piece(_TEXT, piece)

    def thinking(self, piece: str) -> None:
        if self._key == _THINKING:
            self._run.append(piece)
        else:
            self._piece(_THINKING, piece)

    def arguments(self, index: int, piece: str) -> None:
        if self._key == index:
            self._run.append(piece)
        else:
            self._piece(index, piece)

    def add(self, ev: StreamEvent) -> None:
        """Any event; text, thinking and argument deltas are merged like the pieces above."""
        if isinstance(ev, TextDelta):
            self.text(ev.text)
        elif isinstance(ev, ThinkingDelta):
            self.thinking(ev.text)
        elif isinstance(ev, ToolCallDelta):
            self.arguments(ev.index, ev.arguments)
        else:
            if self._key is not None:
                self._close()
            self._out.append(ev)
            self._block = None

    def extend(self, events: list[StreamEvent]) -> None:
        for ev in events:
            self.add(ev)

    def take(self) -> list[StreamEvent]:
        """The events collected since the last call (call it after each network read)."""
        if self._key is not None:
            self._close()
        out, self._out = self._out, []
        return out

    def _piece(self, key: _Key, piece: str) -> None:
        if self._key is not None:
            self._close()
        if self._block == key:
            self._key = key
            self._run = [piece]
        else:
            self._out.append(_event(key, piece))  # the first piece of a block stands alone
            self._block = key

    def _close(self) -> None:
        assert self._key is not None
        run = self._run
        self._out.append(_event(self._key, run[0] if len(run) == 1 else "".join(run)))
        self._key = None
        self._run = []


def _event(key: _Key, piece: str) -> StreamEvent:
    if key == _TEXT:
        return TextDelta(piece)
    if key == _THINKING:
        return ThinkingDelta(piece)
    assert isinstance(key, int)
    return ToolCallDelta(key, piece)


def handle_batch(
    datas: list[str],
    one_obj: Callable[[Any], None],
    one_text: Callable[[str], None],
    label: str,
) -> AgentCliError | None:
    """Hand one read's event texts to a stream state: JSON-decoded in one call (`decode_json_batch`) and given
    to `one_obj` each; when the batch cannot be decoded, `one_text` takes each text (and reports a bad one).
    Returns the error that stopped the batch, if any; the events before it are already collected."""
    objs = decode_json_batch(datas) if datas else []
    i = -1
    try:
        if objs is None:
            for data in datas:
                one_text(data)
            return None
        for i, obj in enumerate(objs):  # noqa: B007 — `i` names the bad event below
            one_obj(obj)
    except AgentCliError as err:
        return err
    except (ValueError, KeyError, TypeError, AttributeError):
        return StreamError(f"malformed event from {label}: {datas[i][:200]!r}")
    return None


class BatchState(Protocol):
    """An adapter's stream state: takes one read's SSE data strings, leaves events in `sink`, returns the
    error to raise after them (if any)."""

    sink: DeltaSink

    def handle_all(self, datas: list[str]) -> AgentCliError | None: ...


async def drive(
    chunks: AsyncIterable[bytes],
    handle: Callable[[list[str]], AgentCliError | None],
    sink: DeltaSink,
    split: Callable[[bytes], list[str]],
    flush: Callable[[], list[str]],
) -> AsyncIterator[StreamEvent]:
    """Read by read: `split` a read into its event texts, `handle` them (events land in `sink`), yield them, then
    raise the error `handle` returned, if any. `flush` gives what the splitter still holds at the end."""
    async for chunk in chunks:
        err = handle(split(chunk))
        for ev in sink.take():
            yield ev
        if err is not None:
            raise err
    err = handle(flush())
    for ev in sink.take():
        yield ev
    if err is not None:
        raise err


async def drive_sse(chunks: AsyncIterable[bytes], state: BatchState) -> AsyncIterator[StreamEvent]:
    """`drive` for Server-Sent Events: each event's `data` is one text."""
    decoder = SSEDecoder()
    async for ev in drive(chunks, state.handle_all, state.sink, lambda c: [e.data for e in decoder.feed(c)],
                          lambda: [e.data for e in decoder.flush()]):
        yield ev
