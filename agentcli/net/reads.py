"""A response body one network read at a time, from httpx's one-piece-per-HTTP-chunk stream.

h11 hands httpx each chunk of a chunked body as its own piece, and API servers send one event per chunk, so a
64 KiB read holding 300 events came out as 300 pieces, and the stream decoders, which batch whatever arrived
together (`providers/coalesce.py`), would see one event at a time. `ReadAhead` reads the pieces in a task of its
own and hands the consumer everything that has arrived each time it asks: the pieces of one network read are
appended without the reader ever waiting, so they are collected before the consumer runs again.

The reader being a task of its own also keeps httpx's clean-up (anyio cancel scopes, which must be left in the
task that entered them) in one task, however and from wherever the consumer stops: `aclose` cancels it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator


class ReadAhead:
    """Async iterator over `pieces`, joined per network read. `idle_timeout`: the longest wait for the next
    piece (TimeoutError). Call `aclose` when done early."""

    __slots__ = ("_buf", "_done", "_error", "_idle", "_pieces", "_task", "_wake")

    def __init__(self, pieces: AsyncIterator[bytes], idle_timeout: float | None = None) -> None:
        self._pieces = pieces
        self._idle = idle_timeout
        self._buf: list[bytes] = []
        self._wake = asyncio.Event()
        self._done = False
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None

    def __aiter__(self) -> ReadAhead:
        return self

    async def __anext__(self) -> bytes:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._pump())
        while not self._buf:
            if self._done:
                if self._error is not None:
                    err, self._error = self._error, None
                    raise err
                raise StopAsyncIteration
            self._wake.clear()
            if self._idle is None:
                await self._wake.wait()
            else:
                async with asyncio.timeout(self._idle):
                    await self._wake.wait()
        buf, self._buf = self._buf, []
        return buf[0] if len(buf) == 1 else b"".join(buf)

    async def _pump(self) -> None:
        try:
            async for piece in self._pieces:
                self._buf.append(piece)
                self._wake.set()
        except asyncio.CancelledError:
            pass  # aclose: the consumer stopped
        except Exception as e:
            self._error = e  # raised to the consumer after the pieces that came before it
        finally:
            self._done = True
            self._wake.set()

    async def aclose(self) -> None:
        """Stop reading (the reader's own clean-up runs in its task) and drop what was not consumed."""
        self._done = True
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task})
        self._buf = []
