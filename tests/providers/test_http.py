from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentcli.net.errors import ConnectError, ConnectionDropped, NetTimeout, ProtocolError
from agentcli.net.http import Dechunker, HttpClient, Timeouts, proxy_for
from tests.fakes import FakeLLM, Fault, Reply

BODY = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}


async def _post_stream(client: HttpClient, url: str) -> tuple[int, dict[str, str], bytes]:
    resp = await client.send("POST", url, headers={"x-api-key": "k"}, json=BODY)
    data = b""
    try:
        async for piece in resp.aiter_bytes():
            data += piece
    finally:
        await resp.aclose()
    return resp.status, resp.headers, data


def test_chunked_stream_and_keep_alive(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="hello world"), Reply(text="again"))

    async def run() -> tuple[Any, Any, int]:
        client = HttpClient()
        first = await _post_stream(client, f"{fake_llm.url}/v1/messages")
        idle = sum(len(v) for v in client._idle.values())
        second = await _post_stream(client, f"{fake_llm.url}/v1/messages")
        await client.aclose()
        return first, second, idle

    (status, headers, data), (_, _, data2), idle = asyncio.run(run())
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert b"event: message_stop" in data and b'"hello w' in data
    assert b'"again"' in data2
    assert idle == 1  # the first connection went back to the pool
    assert fake_llm.requests[0].headers["x-api-key"] == "k"
    assert fake_llm.requests[0].headers["content-type"] == "application/json"
    assert fake_llm.requests[1].body == BODY


def test_content_length_error_body(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=3)))

    async def run() -> tuple[int, dict[str, str], Any]:
        client = HttpClient()
        resp = await client.send("POST", f"{fake_llm.url}/v1/messages", json=BODY)
        body = await resp.json()
        await client.aclose()
        return resp.status, resp.headers, body

    status, headers, body = asyncio.run(run())
    assert status == 429
    assert headers["retry-after"] == "3"
    assert body["error"]["type"] == "rate_limit_error"


def test_connection_refused() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(ConnectError, match="cannot connect"):
        asyncio.run(HttpClient().send("GET", f"http://127.0.0.1:{port}/"))


def test_first_byte_timeout(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="late", fault=Fault("slow_first_byte", delay_s=5)))
    client = HttpClient(Timeouts(connect=1, first_byte=0.2, read=1))
    with pytest.raises(NetTimeout) as e:
        asyncio.run(_post_stream(client, f"{fake_llm.url}/v1/messages"))
    assert e.value.phase == "first_byte"
    assert e.value.code == "timeout" and e.value.retryable


def test_drop_before_and_mid_stream(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault("drop_before")), Reply(text="abcdefghijkl", fault=Fault("drop_mid")))
    with pytest.raises(ConnectionDropped, match="before responding"):
        asyncio.run(_post_stream(HttpClient(), f"{fake_llm.url}/v1/messages"))
    with pytest.raises(ConnectionDropped, match="middle of the response"):
        asyncio.run(_post_stream(HttpClient(), f"{fake_llm.url}/v1/messages"))


async def _raw_server(reply: bytes, hold: asyncio.Event) -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(reply)
        await writer.drain()
        await hold.wait()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def _against_raw(reply: bytes, timeouts: Timeouts) -> bytes:
    async def run() -> bytes:
        hold = asyncio.Event()
        server, port = await _raw_server(reply, hold)
        try:
            resp = await HttpClient(timeouts).send("GET", f"http://127.0.0.1:{port}/x")
            return await resp.read()
        finally:
            hold.set()
            server.close()

    return asyncio.run(run())


def test_idle_read_timeout() -> None:
    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n"
    with pytest.raises(NetTimeout) as e:
        _against_raw(head, Timeouts(connect=1, first_byte=1, read=0.2))
    assert e.value.phase == "read"


def test_until_eof_body_and_100_continue() -> None:
    reply = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nX-A: 1\r\nX-A: 2\r\n\r\nbody bytes"

    async def run() -> tuple[dict[str, str], bytes]:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(reply)
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            resp = await HttpClient().send("GET", f"http://127.0.0.1:{port}/")
            return resp.headers, await resp.read()

    headers, body = asyncio.run(run())
    assert headers["x-a"] == "1, 2"
    assert body == b"body bytes"


def test_not_http() -> None:
    with pytest.raises(ProtocolError):
        _against_raw(b"SSH-2.0-OpenSSH\r\n\r\n", Timeouts(1, 1, 1))


def test_dechunker_every_split() -> None:
    raw = b"5;ext=1\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nTrailer: x\r\n\r\n"
    for i in range(len(raw) + 1):
        d = Dechunker()
        out = d.feed(raw[:i]) + d.feed(raw[i:])
        assert b"".join(out) == b"hello world!" and d.done, i


def test_dechunker_rejects_garbage() -> None:
    with pytest.raises(ProtocolError):
        Dechunker().feed(b"zz\r\n")


@pytest.mark.parametrize(
    ("url", "env", "expected"),
    [
        ("https://api.anthropic.com/v1", {"HTTPS_PROXY": "http://p:1"}, "http://p:1"),
        ("https://api.anthropic.com/v1", {"HTTP_PROXY": "http://p:1"}, None),
        ("http://api.x.com/v1", {"http_proxy": "http://p:2"}, "http://p:2"),
        ("https://api.x.com/v1", {"ALL_PROXY": "socks5://p:3"}, "socks5://p:3"),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "x.com"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": ".x.com"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "no_proxy": "*"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "y.com,x.com:8443"}, "http://p"),
        ("https://notx.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "x.com"}, "http://p"),
        ("http://127.0.0.1:8080/v1", {"HTTP_PROXY": "http://p"}, None),
        ("http://localhost:11434", {"ALL_PROXY": "http://p"}, None),
    ],
)
def test_proxy_for(url: str, env: dict[str, str], expected: str | None) -> None:
    assert proxy_for(url, env) == expected


def test_proxied_request_goes_through_httpx(fake_llm: FakeLLM) -> None:
    """With HTTP_PROXY set, the request is sent (absolute-form) to the proxy — here the fake itself."""
    fake_llm.push(Reply(text="via proxy"))

    async def run() -> tuple[int, dict[str, str], bytes]:
        client = HttpClient(env={"HTTP_PROXY": fake_llm.url})
        try:
            return await _post_stream(client, "http://api.example.invalid/v1/messages")
        finally:
            await client.aclose()

    status, _, data = asyncio.run(run())
    assert status == 200 and b"via prox" in data
    assert fake_llm.requests[0].path == "/v1/messages"


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


def test_tls(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)

    async def run() -> tuple[bytes, BaseException]:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reader.readuntil(b"\r\n\r\n")
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecure")
                await writer.drain()
            except (ssl.SSLError, asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_ctx)
        port = server.sockets[0].getsockname()[1]
        async with server:
            trusted = HttpClient(ssl_context=ssl.create_default_context(cafile=str(cert)))
            body = await (await trusted.send("GET", f"https://127.0.0.1:{port}/")).read()
            await trusted.aclose()
            try:
                await HttpClient().send("GET", f"https://127.0.0.1:{port}/")  # system CAs: untrusted
            except ConnectError as e:
                return body, e
        raise AssertionError("an untrusted certificate was accepted")

    body, err = asyncio.run(run())
    assert body == b"secure"
    assert "certificate" in str(err).lower()
