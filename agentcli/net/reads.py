"""A response body one network read at a time, from httpx's one-piece-per-HTTP-chunk stream.

h11 hands httpx each chunk of a chunked body as its own piece, and API servers send one event per chunk, so a
64 KiB read holding 300 events came out as 300 pieces and the stream decoders, which batch whatever arrived
together (`providers/coalesce.py`), would see one event at a time. `per_read` joins the pieces that are ready
without waiting for the network: it starts each `__anext__` step itself and, when the step completes at once,
keeps the piece; when the step has to wait for the socket, it first hands on what it has, then waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Generator
from typing import Any


class _Resume:
    """Awaits a coroutine that was started by hand (`send(None)`) and is suspended on `pending`."""

    __slots__ = ("_coro", "_pending")

    def __init__(self, coro: Coroutine[Any, Any, bytes], pending: Any) -> None:
        self._coro = coro
        self._pending = pending

    def __await__(self) -> Generator[Any, None, bytes]:
        coro = self._coro
        while True:
            try:
                yield self._pending  # the event loop wakes us when what the step waits on is done
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as e:
                try:
                    self._pending = coro.throw(e)
                except StopIteration as done:
                    return done.value  # type: ignore[no-any-return]
                continue
            return (yield from coro.__await__())

    async def abandon(self) -> None:
        """End the step without its result (the consumer stopped early)."""
        try:
            self._pending = self._coro.throw(_Abandoned())
        except (StopIteration, StopAsyncIteration, _Abandoned):
            return
        try:
            await self
        except (StopAsyncIteration, _Abandoned):
            return


class _Abandoned(BaseException):
    """Thrown into a step the consumer no longer wants, so the stream's own clean-up runs (a BaseException, so
    no `except Exception` on the way turns it into something else)."""


async def per_read(pieces: AsyncIterator[bytes], idle_timeout: float | None = None) -> AsyncIterator[bytes]:
    """`pieces`, joined so that each item is what one network read brought. `idle_timeout`: the longest wait
    for the network between two items (TimeoutError)."""
    it = pieces.__aiter__()
    ready: list[bytes] = []
    waiting: _Resume | None = None  # a step started and suspended, not yet awaited (we were handing on `ready`)
    try:
        while True:
            step: Any = it.__anext__()
            try:
                pending = step.send(None)
            except StopIteration as done:
                ready.append(done.value)
                continue
            except StopAsyncIteration:
                break
            waiting = _Resume(step, pending)
            if ready:
                yield b"".join(ready) if len(ready) > 1 else ready[0]
                ready = []
            resume, waiting = waiting, None
            try:
                if idle_timeout is None:
                    piece = await resume
                else:
                    async with asyncio.timeout(idle_timeout):
                        piece = await resume
            except StopAsyncIteration:
                break
            ready.append(piece)
        if ready:
            yield b"".join(ready) if len(ready) > 1 else ready[0]
    finally:
        if waiting is not None:
            await waiting.abandon()
