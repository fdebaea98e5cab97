"""Each request runs on httpx's sync client in a worker thread (`net/exchange.py`): no anyio on the path, and a
consumer that stops, is cancelled or times out still drops the connection at once, wherever the worker is blocked."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import textwrap
import time

from agentcli.net.http import HttpClient, Timeouts
from tests.providers.netkit import Raw

FRESH_RUN = textwrap.dedent("""
    import asyncio, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from agentcli.net.http import HttpClient

    class Hello(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.send_header("content-length", "2"); self.end_headers()
            self.wfile.write(b"hi")
        def log_message(self, *a): pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def get():
        client = HttpClient()
        try:
            return await (await client.send("GET", f"http://127.0.0.1:{server.server_address[1]}/")).read()
        finally:
            await client.aclose()

    print(asyncio.run(get()).decode(), *(m in sys.modules for m in ("anyio._backends._asyncio", "anyio", "socksio")))
""")


def test_a_request_loads_neither_anyio_nor_socksio() -> None:
    done = subprocess.run([sys.executable, "-c", FRESH_RUN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hi", "False", "False", "False"]


async def _until_eof(reader: asyncio.StreamReader, seen: list[float], hung_up: asyncio.Event) -> None:
    """Reads until the client hangs up, then notes when and says so."""
    while await reader.read(4096):
        pass
    seen.append(time.monotonic())
    hung_up.set()


async def _hang_up(hung_up: asyncio.Event) -> None:
    """Wait for the server to see the hang-up; bounded (a missing one shows as the 99 s figure asserted on)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(hung_up.wait(), 10)


def test_breaking_off_a_stalled_body_drops_the_connection_at_once() -> None:
    """The worker is blocked reading a body that stalls (read limit 60 s): closing wakes it and hangs up."""
    seen: list[float] = []
    hung_up = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n")
        await writer.drain()
        await _until_eof(reader, seen, hung_up)

    async def run() -> tuple[bytes, float]:
        async with Raw(handler) as raw:
            client = HttpClient(Timeouts(connect=5, first_byte=60, read=60))
            resp = await client.send("GET", f"http://127.0.0.1:{raw.port}/")
            body = resp.aiter_bytes()
            first = await anext(body)
            t0 = time.monotonic()
            await body.aclose()
            await _hang_up(hung_up)
            await client.aclose()
            return first, (seen[0] - t0) if seen else 99.0

    first, hung_up_after = asyncio.run(run())
    assert first == b"hello"
    assert hung_up_after < 4


def test_cancelled_while_waiting_for_the_head_hangs_up() -> None:
    """Cancelled before the server answered (a model still thinking): the request is not left running."""
    seen: list[float] = []
    hung_up = asyncio.Event()
    arrived = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        arrived.set()
        await _until_eof(reader, seen, hung_up)

    async def run() -> float:
        async with Raw(handler) as raw:
            client = HttpClient(Timeouts(connect=5, first_byte=60, read=60))
            task = asyncio.ensure_future(client.send("POST", f"http://127.0.0.1:{raw.port}/", json={}))
            await asyncio.wait_for(arrived.wait(), 30)
            t0 = time.monotonic()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await _hang_up(hung_up)
            await client.aclose()
            return (seen[0] - t0) if seen else 99.0

    assert asyncio.run(run()) < 4


def test_the_worker_reads_at_most_a_bounded_amount_ahead_of_a_slow_consumer() -> None:
    """A reply larger than the read-ahead limit: the worker waits for the consumer instead of buffering it all
    (peak memory); every byte still arrives, in order."""
    from agentcli.net.exchange import _AHEAD

    chunk = b"x" * 4000
    body = b"".join(b"%x\r\n%b\r\n" % (len(chunk), chunk) for _ in range(1000)) + b"0\r\n\r\n"  # 4 MB

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + body)
        await writer.drain()

    async def run() -> list[int]:
        async with Raw(handler) as raw:
            client = HttpClient()
            resp = await client.send("GET", f"http://127.0.0.1:{raw.port}/")
            sizes = []
            async for piece in resp.aiter_bytes():
                sizes.append(len(piece))
                if len(sizes) == 1:
                    await asyncio.sleep(0.3)  # a slow consumer; the bound below holds whatever the timing
            await client.aclose()
            return sizes

    sizes = asyncio.run(run())
    assert sum(sizes) == 4_000_000
    assert max(sizes) <= _AHEAD + len(chunk), max(sizes)


def test_a_task_cancelled_before_it_sends_sends_nothing() -> None:
    """An interrupt answered while a tool call was approved cancels the task before its next request: that request
    must not reach the server (the SDK's deny-with-interrupt: exactly one request)."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        while True:
            await raw.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await writer.drain()

    async def run() -> tuple[bool, int]:
        async with Raw(handler) as raw:
            client = HttpClient()
            await (await client.send("POST", f"http://127.0.0.1:{raw.port}/zeroth", json={})).read()  # kept alive

            async def send_cancelled() -> None:
                task = asyncio.current_task()
                assert task is not None
                task.cancel()  # as the approver's interrupt does, from inside the running turn
                await client.send("POST", f"http://127.0.0.1:{raw.port}/first", json={})

            results = await asyncio.gather(send_cancelled(), return_exceptions=True)
            second = await (await client.send("POST", f"http://127.0.0.1:{raw.port}/second", json={})).read()
            await client.aclose()
            return isinstance(results[0], asyncio.CancelledError) and second == b"ok", len(raw.heads)

    assert asyncio.run(run()) == (True, 2)
