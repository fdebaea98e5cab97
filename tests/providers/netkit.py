"""Small real servers for the HTTP client tests: a raw HTTP/1.1 responder, a CONNECT proxy, TLS certificates."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, "Raw"], Awaitable[None]]


@dataclass
class Raw:
    """A loopback TCP server running `handler` per connection; counts connections and request heads."""

    handler: Handler
    tls: ssl.SSLContext | None = None
    connections: int = 0
    heads: list[bytes] = field(default_factory=list)
    server: asyncio.Server | None = None

    async def __aenter__(self) -> Raw:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            try:
                await self.handler(reader, writer, self)
            except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
                pass
            finally:
                writer.close()

        self.server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=self.tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def read_request(self, reader: asyncio.StreamReader) -> bytes:
        """One request: its head (recorded) and its content-length body."""
        head = await reader.readuntil(b"\r\n\r\n")
        self.heads.append(head)
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                await reader.readexactly(int(line.split(b":")[1]))
        return head


def answer(body: bytes = b"ok", *, keep_alive: bool = True) -> bytes:
    conn = b"" if keep_alive else b"connection: close\r\n"
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%b\r\n%b" % (len(body), conn, body)


def make_cert(tmp: Path, *names: str) -> tuple[Path, Path]:
    """A self-signed certificate (and key) for `names` (DNS names or IP addresses), made by openssl."""
    cert, key = tmp / f"{names[0]}.pem", tmp / f"{names[0]}.key"
    san = ",".join(f"IP:{n}" if n[0].isdigit() else f"DNS:{n}" for n in names)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={names[0]}",
         "-addext", f"subjectAltName={san}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


def server_tls(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


async def _tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up_r: asyncio.StreamReader,
                  up_w: asyncio.StreamWriter) -> None:
    """Copy both ways until either side closes."""

    async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        dst.close()

    await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))


class _Proxy:
    """A local proxy that tunnels every request to 127.0.0.1:`target_port`, whatever host was asked for;
    subclasses read their protocol's greeting in `_open` and answer it."""

    scheme = "http"

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Self:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"{self.scheme}://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _open(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        raise NotImplementedError

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_w: asyncio.StreamWriter | None = None
        try:
            if not await self._open(reader, writer):
                return
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
            writer.write(self.established)
            await writer.drain()
            await _tunnel(reader, writer, up_r, up_w)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            if up_w is not None:
                up_w.close()

    established = b""


class ConnectProxy(_Proxy):
    """An HTTP CONNECT proxy; `connects` records the CONNECT lines."""

    established = b"HTTP/1.1 200 Connection established\r\n\r\n"

    def __init__(self, target_port: int) -> None:
        super().__init__(target_port)
        self.connects: list[str] = []

    async def _open(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        line = head.split(b"\r\n", 1)[0].decode()
        self.connects.append(line)
        if not line.startswith("CONNECT "):
            writer.write(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
            return False
        return True


class Socks5Proxy(_Proxy):
    """A SOCKS5 proxy (no authentication); `asked` records the host and port asked for."""

    scheme = "socks5"
    established = b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00"

    def __init__(self, target_port: int) -> None:
        super().__init__(target_port)
        self.asked: list[tuple[str, int]] = []

    async def _open(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        _, n = await reader.readexactly(2)
        await reader.readexactly(n)
        writer.write(b"\x05\x00")  # no authentication
        _, _, _, atyp = await reader.readexactly(4)
        if atyp == 3:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        else:
            host = socket.inet_ntop(socket.AF_INET if atyp == 1 else socket.AF_INET6,
                                    await reader.readexactly(4 if atyp == 1 else 16))
        port = int.from_bytes(await reader.readexactly(2), "big")
        self.asked.append((host, port))
        return True


