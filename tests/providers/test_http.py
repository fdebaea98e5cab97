"""The HTTP client (httpx underneath): streaming, keep-alive, timeouts, framing, errors, paths."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest

from agentcli.errors import ConfigError
from agentcli.net.errors import ConnectionDropped, LocalServerDown, NetTimeout, ProtocolError
from agentcli.net.http import HttpClient, Timeouts
from tests.fakes import FakeLLM, Fault, Reply
from tests.providers.netkit import Raw, answer

BODY = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}


async def _post_stream(client: HttpClient, url: str) -> tuple[int, Any, bytes]:
    resp = await client.send("POST", url, headers={"x-api-key": "k"}, json=BODY)
    data = b""
    try:
        async for piece in resp.aiter_bytes():
            data += piece
    finally:
        await resp.aclose()
    return resp.status, resp.headers, data


def test_chunked_stream(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="hello world"), Reply(text="again"))

    async def run() -> tuple[Any, Any]:
        client = HttpClient()
        try:
            return (await _post_stream(client, f"{fake_llm.url}/v1/messages"),
                    await _post_stream(client, f"{fake_llm.url}/v1/messages"))
        finally:
            await client.aclose()

    (status, headers, data), (_, _, data2) = asyncio.run(run())
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert b"event: message_stop" in data and b'"hello w' in data
    assert b'"again"' in data2
    assert fake_llm.requests[0].headers["x-api-key"] == "k"
    assert fake_llm.requests[0].headers["content-type"] == "application/json"
    assert fake_llm.requests[0].headers["user-agent"] == "agentcli"
    assert fake_llm.requests[1].body == BODY


def test_keep_alive_reuses_one_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        while True:
            await raw.read_request(reader)
            writer.write(answer(b"hi"))
            await writer.drain()

    async def run() -> tuple[int, int]:
        async with Raw(handler) as raw:
            client = HttpClient()
            for _ in range(3):
                assert await (await client.send("POST", f"http://127.0.0.1:{raw.port}/x", json={})).read() == b"hi"
            await client.aclose()
            return raw.connections, len(raw.heads)

    assert asyncio.run(run()) == (1, 3)


def test_pieces_that_arrive_together_are_handed_on_together() -> None:
    """The server writes 200 HTTP chunks at once: the body comes out in a few pieces, not 200 (the stream
    decoders batch per piece; that is where streaming speed comes from)."""
    chunks = b"".join(b"%x\r\n%b\r\n" % (len(w), w) for w in (f"data: {i}\n\n".encode() for i in range(200)))

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + chunks)
        await writer.drain()
        await asyncio.sleep(0)  # let the client read what was written before the end arrives on its own
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def run() -> list[bytes]:
        async with Raw(handler) as raw:
            client = HttpClient()
            resp = await client.send("GET", f"http://127.0.0.1:{raw.port}/")
            pieces = [p async for p in resp.aiter_bytes()]
            await client.aclose()
            return pieces

    pieces = asyncio.run(run())
    assert b"".join(pieces) == b"".join(f"data: {i}\n\n".encode() for i in range(200))
    assert len(pieces) <= 5, len(pieces)


def test_content_length_error_body(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=3)))

    async def run() -> tuple[int, Any, Any]:
        client = HttpClient()
        resp = await client.send("POST", f"{fake_llm.url}/v1/messages", json=BODY)
        body = await resp.json()
        await client.aclose()
        return resp.status, resp.headers, body

    status, headers, body = asyncio.run(run())
    assert status == 429
    assert headers["retry-after"] == "3"
    assert body["error"]["type"] == "rate_limit_error"


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_connection_refused_on_loopback_names_the_server(host: str) -> None:
    port = _free_port()
    with pytest.raises(LocalServerDown) as e:
        asyncio.run(HttpClient().send("GET", f"http://{host}:{port}/v1/models"))
    assert not e.value.retryable and e.value.code == "unavailable"
    assert f"http://{host}:{port}" in e.value.message
    assert "llama-server" in (e.value.hint or "") and f"curl http://{host}:{port}/v1/models" in (e.value.hint or "")


def test_first_byte_timeout(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="late", fault=Fault("slow_first_byte", delay_s=5)))
    client = HttpClient(Timeouts(connect=1, first_byte=0.2, read=1))
    with pytest.raises(NetTimeout) as e:
        asyncio.run(_post_stream(client, f"{fake_llm.url}/v1/messages"))
    assert e.value.phase == "first_byte"
    assert e.value.code == "timeout" and e.value.exit_status == 75
    assert not e.value.retryable  # the request was sent: re-sending could bill it twice


def test_drop_before_and_mid_stream(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault("drop_before")), Reply(text="abcdefghijkl", fault=Fault("drop_mid")))
    with pytest.raises(ConnectionDropped, match="before responding") as e:
        asyncio.run(_post_stream(HttpClient(), f"{fake_llm.url}/v1/messages"))
    assert not e.value.retryable and "may have processed" in e.value.one_line()
    with pytest.raises(ConnectionDropped, match="middle of the response"):
        asyncio.run(_post_stream(HttpClient(), f"{fake_llm.url}/v1/messages"))


def _against_raw(reply: bytes, timeouts: Timeouts) -> bytes:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(reply)
        await writer.drain()
        await asyncio.sleep(5)

    async def run() -> bytes:
        async with Raw(handler) as raw:
            client = HttpClient(timeouts)
            try:
                return await (await client.send("GET", f"http://127.0.0.1:{raw.port}/x")).read()
            finally:
                await client.aclose()

    return asyncio.run(run())


def test_idle_read_timeout() -> None:
    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n"
    t0 = time.monotonic()
    with pytest.raises(NetTimeout) as e:
        _against_raw(head, Timeouts(connect=1, first_byte=1, read=0.2))
    assert e.value.phase == "read" and time.monotonic() - t0 < 3


def test_until_eof_body_and_100_continue() -> None:
    reply = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nX-A: 1\r\nX-A: 2\r\n\r\nbody bytes"

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(reply)
        await writer.drain()

    async def run() -> tuple[Any, bytes]:
        async with Raw(handler) as raw:
            resp = await HttpClient().send("GET", f"http://127.0.0.1:{raw.port}/")
            return resp.headers, await resp.read()

    headers, body = asyncio.run(run())
    assert headers["x-a"] == "1, 2"
    assert body == b"body bytes"


@pytest.mark.parametrize("reply", [
    b"SSH-2.0-OpenSSH\r\n\r\n",
    b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 7\r\n\r\nhello",  # ambiguous framing
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",  # a bad chunk size
    b"HTTP/1.1 200 OK\r\nbad header line\r\n\r\n",
])
def test_bad_framing_is_a_protocol_error(reply: bytes) -> None:
    with pytest.raises(ProtocolError) as e:
        _against_raw(reply, Timeouts(1, 1, 1))
    assert not e.value.retryable


def test_paths_are_sent_percent_encoded() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(answer())
        await writer.drain()

    async def run() -> bytes:
        async with Raw(handler) as raw:
            client = HttpClient()  # closed: its kept-alive connection would otherwise be left to the GC
            try:
                await (await client.send("GET", f"http://127.0.0.1:{raw.port}/v1/models/a b%2Fc:x?q=1 2")).read()
            finally:
                await client.aclose()
            return raw.heads[0].split(b"\r\n", 1)[0]

    assert asyncio.run(run()) == b"GET /v1/models/a%20b%2Fc:x?q=1%202 HTTP/1.1"


@pytest.mark.parametrize("value", ["sk-abc\r\nx-evil: 1", "sk-ab\u201cc"])
def test_bad_header_values_are_config_errors(value: str) -> None:
    with pytest.raises(ConfigError, match="header 'x-api-key'"):
        asyncio.run(HttpClient().send("GET", "http://127.0.0.1:9/", headers={"x-api-key": value}))


@pytest.mark.parametrize("url", ["ftp://example.com/x", "http:///nohost", "file:///etc/passwd"])
def test_non_http_urls_are_config_errors(url: str) -> None:
    with pytest.raises(ConfigError):
        asyncio.run(HttpClient().send("GET", url))
