"""The thin client's HTTP/1.0 (agentcli.server.wire) against a server that misbehaves, and the server's socket:
Nagle's algorithm off on its connections."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import pytest

from agentcli.errors import UsageError
from agentcli.server.attach import Attached, Unreachable
from agentcli.server.run import listening_socket
from agentcli.server.wire import MAX_HEADERS, Exchange, WireError


def _serving(answer: bytes, heard: list[bytes] | None = None) -> Iterator[int]:
    """A loopback server that answers every request with `answer`, closing each connection after it; the
    requests' first lines go to `heard`."""
    sock = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:  # closed: the test is over
                return
            with conn:
                request = conn.recv(65536)
                if heard is not None:
                    heard.append(request.split(b"\r\n", 1)[0])
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        thread.join(10)


@pytest.fixture
def port(request: pytest.FixtureRequest) -> Iterator[int]:
    yield from _serving(request.param)


@pytest.mark.parametrize(("port", "said"), [
    (b"SSH-2.0-OpenSSH_9.6\r\n", "not HTTP"),
    (b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * (MAX_HEADERS + 1) + b"\r\n", "header lines"),
    (b"HTTP/1.0 200 OK\r\nContent-Length: -5\r\n\r\n", "Content-Length"),
], indirect=["port"])
def test_what_is_not_an_http_answer_is_said_so(port: int, said: str) -> None:
    with pytest.raises(WireError, match=said):
        Exchange("127.0.0.1", port, False, "GET", "/", {}).body()


@pytest.mark.parametrize("port", [b"HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\":1}trailing",
                                  b"HTTP/1.0 200 OK\r\n\r\n{\"a\":1}"], indirect=True)
def test_a_body_is_its_length_or_what_comes_until_the_close(port: int) -> None:
    exchange = Exchange("127.0.0.1", port, False, "GET", "/", {})
    assert exchange.status == 200 and exchange.body() == b'{"a":1}'


@pytest.mark.parametrize("port", [b"HTTP/1.0 200 OK\r\n\r\n: watching\n\ndata: [1]\n\n"], indirect=True)  # the
# prompt's POST gets the same answer: a 200 is all it needs
def test_an_event_that_is_not_an_object_ends_the_turn_clearly(port: int) -> None:
    client = Attached(f"http://127.0.0.1:{port}", "t")
    client.sid = "s"
    with pytest.raises(Unreachable, match="not a JSON object"):
        list(client.turn("hi", lambda line: {}))


def test_the_servers_connections_send_at_once() -> None:
    """TCP_NODELAY on every accepted connection (asyncio sets it only for a socket made with IPPROTO_TCP):
    without it an answer written in two pieces on a kept-alive connection waited for a delayed ACK (~40 ms)."""
    async def main() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=listening_socket("127.0.0.1", 0))
        async with server:
            port = server.sockets[0].getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            nodelay = await asyncio.wait_for(seen, 10)
            writer.close()
            return nodelay

    assert asyncio.run(main()) != 0


@pytest.mark.parametrize("port", [b"HTTP/1.0 200 OK\r\n\r\n: watching\n\nevent: system\n"
                                  b"data: {\"type\": \"system\"}\n\n"], indirect=True)
def test_a_stream_that_ends_before_the_result_is_said_so(port: int) -> None:
    client = Attached(f"http://127.0.0.1:{port}", "t")
    client.sid = "s"
    with pytest.raises(Unreachable, match="before the turn's result"):
        list(client.turn("hi", lambda line: {}))


def test_what_the_server_names_stays_one_path_segment() -> None:
    """A session id (or request id) from the server goes into request lines quoted, never as raw text."""
    heard: list[bytes] = []
    answer = b'HTTP/1.0 201 Created\r\n\r\n{"session_id": "a b\\r\\nX: y/../.."}'
    for port in _serving(answer, heard):
        client = Attached(f"http://127.0.0.1:{port}", "t")
        client.open("/tmp", None)
        with pytest.raises(Unreachable):
            list(client.turn("hi", lambda line: {}))
    assert heard[1] == b"POST /v1/sessions/a%20b%0D%0AX%3A%20y%2F..%2F../prompt HTTP/1.0"


def test_a_token_no_header_can_carry_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot carry"):
        Attached("http://127.0.0.1:9", "t\r\nX-Evil: 1")
