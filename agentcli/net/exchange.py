"""One HTTP exchange on httpx's sync `Client`, run in a worker thread of its own and handed to the event loop.

Why a thread and not `httpx.AsyncClient`: the async client runs on anyio, whose asyncio backend (and its cancel
scopes, task groups and locks around every read) is imported at the first request and runs for every piece of
the body; the sync client reads the socket directly. Measured: 8.7 % fewer instructions for a whole `-p` run (86 M of
990 M), and the body's per-chunk work moves off the loop's thread (bench/RESULTS.md, "Sixth landing — perf").

The worker sends the request, hands the response head to the loop, then reads the body ahead into a buffer; the
loop takes whatever has arrived each time it asks, woken by one `call_soon_threadsafe` per wait, not per piece.
What came in one network read stays together (the stream decoders batch per piece): the worker wakes a waiting
consumer just before its next socket read, once every HTTP chunk of the last read is in the buffer (the
connection's stream, httpcore's `NetworkStream`, gets a `read` that does this first).

Stopping (the consumer breaks off, is cancelled, or times out): the worker is told to stop and the connection's
socket is shut down, which wakes a blocked read at once; the worker then closes the response itself, so httpx's
objects are only ever used by the thread that runs the exchange. While the head has not arrived on a connection
that was kept alive from an earlier request (its socket is not known until then), the worker closes the response
the moment the head arrives, or fails at httpx's own timeout: the request is never sent again either way.
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import socket
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

_NEW_STREAM = ("connection.connect_tcp.complete", "connection.start_tls.complete")
_AHEAD = 1 << 16  # bytes the worker reads ahead of the consumer before it waits (a slow consumer, a huge reply)
_current = threading.local()  # .exchange: the exchange this worker thread runs


class Exchange:
    """A request sent on a worker thread. `head()` waits for the response head; `__anext__` yields the body,
    joined per network read; `aclose()` stops the worker and releases the connection."""

    __slots__ = ("_buf", "_client", "_done", "_error", "_finished", "_head", "_lock", "_loop", "_req", "_resp",
                 "_room", "_size", "_stop", "_stream", "_waiter", "_waiting", "_watched")

    def __init__(self, client: httpx.Client, req: httpx.Request) -> None:
        self._client = client
        self._req = req
        self._loop = asyncio.get_running_loop()
        self._lock = _thread.allocate_lock()
        self._head: asyncio.Future[httpx.Response] = self._loop.create_future()
        self._finished: asyncio.Future[None] = self._loop.create_future()
        self._resp: httpx.Response | None = None
        self._stream: Any = None  # the connection's network stream, once known
        self._buf: list[bytes] = []
        self._size = 0  # bytes in _buf
        self._room = threading.Condition(self._lock)  # the consumer took the buffer, or the exchange stops
        self._done = False
        self._stop = False
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._waiting = False
        self._watched = False
        req.extensions["trace"] = self._trace
        # `_thread`, not `threading.Thread.start()`, which blocks until the new thread is scheduled.
        _thread.start_new_thread(self._run, ())

    async def head(self) -> httpx.Response:
        """The response, its status and headers read, its body still arriving. Raises what httpx raised."""
        return await asyncio.shield(self._head)

    def __aiter__(self) -> Exchange:
        return self

    async def __anext__(self) -> bytes:
        while True:
            with self._lock:
                if self._buf:
                    buf, self._buf = self._buf, []
                    if self._size > _AHEAD:
                        self._room.notify()
                    self._size = 0
                    return buf[0] if len(buf) == 1 else b"".join(buf)
                if self._done:
                    if self._error is not None:
                        err, self._error = self._error, None
                        raise err
                    raise StopAsyncIteration
                waiter = self._waiter = self._loop.create_future()
                self._waiting = True
            await waiter

    async def aclose(self) -> None:
        """Stop the worker (its read is woken by shutting the socket down) and wait until it has closed the
        response; drop what was not consumed."""
        with self._lock:
            self._stop = True
            self._buf = []
            self._room.notify()
            stream = None if self._done else self._stream  # a body read to its end keeps its connection alive
        _shut(stream)
        if not self._head.done():
            return  # the worker closes the response when the head arrives (see the module's docstring)
        await asyncio.shield(self._finished)

    def _trace(self, name: str, info: dict[str, Any]) -> None:
        if name in _NEW_STREAM:
            _watch(info.get("return_value"))
            with self._lock:
                self._stream = info.get("return_value")
                stop = self._stop
            if stop:
                _shut(self._stream)

    def _run(self) -> None:
        _current.exchange = self
        try:
            resp = self._client.send(self._req, stream=True)
        except BaseException as e:  # handed to the loop's thread, raised there
            self._post(_set_exception, self._head, e)
            self._post(_set_result, self._finished, None)
            return
        with self._lock:
            self._resp = resp
            self._stream = resp.extensions.get("network_stream", self._stream)
            self._watched = getattr(self._stream, "_agentcli_watched", False)
            stop = self._stop
        if not stop:
            self._post(_set_result, self._head, resp)
            self._pump(resp)
        else:
            self._post(_cancel, self._head)
        with contextlib.suppress(Exception):  # a socket shut down under it: the exchange is over either way
            resp.close()
        self._post(_set_result, self._finished, None)

    def _pump(self, resp: httpx.Response) -> None:
        error: BaseException | None = None
        try:
            for piece in resp.iter_raw():  # never an empty piece (httpx hands on only what it read)
                with self._lock:
                    if self._stop:
                        return
                    self._buf.append(piece)
                    self._size += len(piece)
                    if self._size > _AHEAD:
                        self._wait_for_room()
                        continue
                    if self._watched:
                        continue  # the consumer is woken before the next read (`_watch`)
                    wake, self._waiting = self._waiting, False
                if wake:
                    self._post(self._wake)
        except BaseException as e:
            error = e
        finally:
            with self._lock:
                self._done = True
                if error is not None and not self._stop:
                    self._error = error
                wake, self._waiting = self._waiting, False
            if wake:
                self._post(self._wake)

    def _wait_for_room(self) -> None:
        """With the lock held and the buffer full: wake the consumer, then wait until it has taken the buffer."""
        if self._waiting:
            self._waiting = False
            self._post(self._wake)
        while self._size > _AHEAD and not self._stop:
            self._room.wait()

    def _flush(self) -> None:
        """Wake the consumer if it waits and something has arrived (the worker is about to read again)."""
        with self._lock:
            wake = self._waiting and bool(self._buf)
            if wake:
                self._waiting = False
        if wake:
            self._post(self._wake)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _post(self, fn: Any, *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this exchange any more
            self._loop.call_soon_threadsafe(fn, *args)


def _set_result(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)


def _set_exception(fut: asyncio.Future[Any], exc: BaseException) -> None:
    if not fut.done():
        fut.set_exception(exc)
        fut.exception()  # marked retrieved: an exchange nobody waits for any more logs nothing


def _cancel(fut: asyncio.Future[Any]) -> None:
    fut.cancel()


def _watch(stream: Any) -> None:
    """Give a new connection's stream a `read` that first hands the consumer of the exchange running on the
    reading thread what has arrived. A stream that does not take the attribute keeps waking per piece."""
    if stream is None or getattr(stream, "_agentcli_watched", False):
        return
    read = stream.read

    def read_after_flush(max_bytes: int, timeout: float | None = None) -> Any:
        exchange = getattr(_current, "exchange", None)
        if exchange is not None:
            exchange._flush()
        return read(max_bytes, timeout)

    with contextlib.suppress(AttributeError, TypeError):
        stream.read = read_after_flush
        stream._agentcli_watched = True


def _shut(stream: Any) -> None:
    """Shut the socket under `stream` down (wakes a read blocked on it in another thread), if there is one."""
    if stream is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        sock = stream.get_extra_info("socket")
        if sock is not None:
            # socket.socket's own shutdown, also for an ssl socket: it must not drop the TLS state the reading
            # thread is using; the read then sees the end of the stream and fails.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
