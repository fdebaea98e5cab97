"""A lean async HTTP/1.1 client on asyncio streams: enough for streaming JSON APIs, cheap to import.

Why not httpx: importing it costs more than a whole `agentcli -p` run may spend (see docs/providers.md).
When a proxy applies to the target (`HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY`, minus `NO_PROXY`), requests
go through httpx instead, imported only then. Loopback targets (local model servers) never use a proxy.

    client = HttpClient(Timeouts(connect=10, first_byte=600, read=600))
    resp = await client.send("POST", url, headers={...}, json={...})
    try:
        async for chunk in resp.aiter_bytes(): ...
    finally:
        await resp.aclose()
"""

from __future__ import annotations

import asyncio
import json as _json
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentcli.errors import ConfigError
from agentcli.net.errors import ConnectError, ConnectionDropped, NetTimeout, ProtocolError

if TYPE_CHECKING:
    import ssl

    from agentcli.net.proxy import HttpxTransport

USER_AGENT = "agentcli"
_READ_SIZE = 65536
_MAX_HEADER_BYTES = 65536
_ERROR_BODY_CAP = 1 << 20


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds allowed to connect, to receive the response headers, and between two body reads."""

    connect: float = 10.0
    first_byte: float = 600.0
    read: float = 600.0


class Response:
    """Status and headers of a response whose body has not been read yet."""

    def __init__(self, status: int, reason: str, headers: dict[str, str]) -> None:
        self.status = status
        self.reason = reason
        self.headers = headers  # lower-case names; repeated headers joined with ", "

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, de-chunked, in pieces as they arrive."""
        raise NotImplementedError

    async def aclose(self) -> None:
        raise NotImplementedError

    async def read(self, limit: int = _ERROR_BODY_CAP) -> bytes:
        """The whole body (up to `limit` bytes; the rest is discarded), then close."""
        parts: list[bytes] = []
        size = 0
        try:
            async for piece in self.aiter_bytes():
                if size < limit:
                    parts.append(piece[: limit - size])
                size += len(piece)
        finally:
            await self.aclose()
        return b"".join(parts)

    async def json(self) -> Any:
        return _json.loads(await self.read())


class _Conn:
    __slots__ = ("reader", "reused", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.reused = False

    def close(self) -> None:
        self.writer.close()


Origin = tuple[str, str, int]


class HttpClient:
    """Sends requests; keeps finished HTTP/1.1 connections for reuse. One per provider instance."""

    def __init__(
        self,
        timeouts: Timeouts | None = None,
        *,
        env: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """`env` replaces os.environ for proxy lookup; `ssl_context` replaces the default (system CAs)."""
        self.timeouts = timeouts or Timeouts()
        self._env = env
        self._idle: dict[Origin, list[_Conn]] = {}
        self._ssl: ssl.SSLContext | None = ssl_context
        self._httpx: HttpxTransport | None = None

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
        content: bytes | None = None,
        timeouts: Timeouts | None = None,
    ) -> Response:
        """Send a request and return once the response headers arrived. Raises `agentcli.net.errors`."""
        t = timeouts or self.timeouts
        body = _json.dumps(json, ensure_ascii=False).encode() if json is not None else content
        hdrs = {"user-agent": USER_AGENT, "accept-encoding": "identity"}
        if json is not None:
            hdrs["content-type"] = "application/json"
        for k, v in (headers or {}).items():
            hdrs[k.lower()] = _clean_header(k, v)
        proxy = proxy_for(url, self._env if self._env is not None else os.environ)
        if proxy is not None:
            if self._httpx is None:
                from agentcli.net.proxy import HttpxTransport

                self._httpx = HttpxTransport(proxy)
            return await self._httpx.send(method, url, hdrs, body, t)
        return await self._send_direct(method, url, hdrs, body, t)

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for c in conns:
                c.close()
        self._idle.clear()
        if self._httpx is not None:
            await self._httpx.aclose()
            self._httpx = None

    async def _send_direct(
        self, method: str, url: str, hdrs: dict[str, str], body: bytes | None, t: Timeouts
    ) -> Response:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"not an http(s) URL: {url!r}")
        host = parts.hostname
        port = parts.port or (443 if scheme == "https" else 80)
        origin: Origin = (scheme, host, port)
        default_port = port == (443 if scheme == "https" else 80)
        host_hdr = host if ":" not in host else f"[{host}]"
        hdrs.setdefault("host", host_hdr if default_port else f"{host_hdr}:{port}")
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = _request_head(method, target, hdrs, body)
        for _ in range(2):
            conn = await self._checkout(origin, t.connect)
            try:
                return await self._exchange(conn, origin, head, body, t)
            except ConnectionDropped:
                conn.close()
                if not conn.reused:
                    raise
                # A kept-alive connection the server had already closed: retry once on a fresh one.
            except BaseException:
                conn.close()
                raise
        raise AssertionError("unreachable")

    async def _checkout(self, origin: Origin, connect_timeout: float) -> _Conn:
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if not conn.reader.at_eof() and not conn.writer.is_closing():
                conn.reused = True
                return conn
            conn.close()
        return await self._connect(origin, connect_timeout)

    async def _connect(self, origin: Origin, connect_timeout: float) -> _Conn:
        scheme, host, port = origin
        ctx = None
        if scheme == "https":
            if self._ssl is None:
                import ssl

                self._ssl = ssl.create_default_context()
            ctx = self._ssl
        try:
            async with asyncio.timeout(connect_timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=ctx, limit=_MAX_HEADER_BYTES * 2
                )
        except TimeoutError:
            raise NetTimeout(f"connecting to {host}:{port} timed out after {connect_timeout:g}s",
                             phase="connect") from None
        except OSError as e:
            raise ConnectError(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
        return _Conn(reader, writer)

    async def _exchange(
        self, conn: _Conn, origin: Origin, head: bytes, body: bytes | None, t: Timeouts
    ) -> Response:
        try:
            conn.writer.write(head + body if body else head)
            async with asyncio.timeout(t.first_byte):
                await conn.writer.drain()
                while True:
                    raw = await conn.reader.readuntil(b"\r\n\r\n")
                    status, reason, version, headers = _parse_head(raw)
                    if not (100 <= status < 200) or status == 101:
                        break
        except TimeoutError:
            raise NetTimeout(f"no response from {origin[1]}:{origin[2]} within {t.first_byte:g}s",
                             phase="first_byte") from None
        except asyncio.IncompleteReadError:
            raise ConnectionDropped("the server closed the connection before responding") from None
        except asyncio.LimitOverrunError:
            raise ProtocolError("response headers too large") from None
        except OSError as e:
            raise ConnectionDropped(f"connection failed while waiting for a response: {e}") from None
        return _RawResponse(self, conn, origin, status, reason, version, headers, t.read)

    def _release(self, origin: Origin, conn: _Conn) -> None:
        self._idle.setdefault(origin, []).append(conn)


def _clean_header(name: str, value: str) -> str:
    v = str(value).strip()
    if "\r" in v or "\n" in v or "\r" in name or "\n" in name:
        raise ConfigError(f"header {name!r} contains a line break; check the configured key or header")
    return v


def _request_head(method: str, target: str, hdrs: dict[str, str], body: bytes | None) -> bytes:
    lines = [f"{method} {target} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in hdrs.items()]
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"content-length: {len(body or b'')}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def _parse_head(raw: bytes) -> tuple[int, str, str, dict[str, str]]:
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ProtocolError(f"not an HTTP response: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise ProtocolError(f"malformed header line: {line[:80]!r}")
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return int(parts[1]), parts[2] if len(parts) > 2 else "", parts[0], headers


class _RawResponse(Response):
    def __init__(
        self,
        client: HttpClient,
        conn: _Conn,
        origin: Origin,
        status: int,
        reason: str,
        version: str,
        headers: dict[str, str],
        read_timeout: float,
    ) -> None:
        super().__init__(status, reason, headers)
        self._client = client
        self._conn: _Conn | None = conn
        self._origin = origin
        self._read_timeout = read_timeout
        te = headers.get("transfer-encoding", "").lower()
        self._chunked = "chunked" in te
        cl = headers.get("content-length")
        self._length: int | None = int(cl) if cl and cl.strip().isdigit() and not self._chunked else None
        if status in (204, 304):
            self._length = 0
        framed = self._chunked or self._length is not None
        self._keep_alive = (
            framed and version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        )

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        conn = self._conn
        if conn is None:
            return
        complete = False
        try:
            if self._chunked:
                dechunk = Dechunker()
                while not dechunk.done:
                    data = await self._read_raw(conn)
                    if not data:
                        raise ConnectionDropped("the connection closed in the middle of the response")
                    for piece in dechunk.feed(data):
                        yield piece
            elif self._length is not None:
                left = self._length
                while left > 0:
                    data = await self._read_raw(conn, min(left, _READ_SIZE))
                    if not data:
                        raise ConnectionDropped("the connection closed in the middle of the response")
                    left -= len(data)
                    yield data
            else:
                while data := await self._read_raw(conn):
                    yield data
            complete = True
        finally:
            self._finish(complete)

    async def _read_raw(self, conn: _Conn, n: int = _READ_SIZE) -> bytes:
        try:
            async with asyncio.timeout(self._read_timeout):
                return await conn.reader.read(n)
        except TimeoutError:
            raise NetTimeout(f"the server sent nothing for {self._read_timeout:g}s", phase="read") from None
        except OSError as e:
            raise ConnectionDropped(f"the connection failed mid-response: {e}") from None

    def _finish(self, complete: bool) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if complete and self._keep_alive:
            self._client._release(self._origin, conn)
        else:
            conn.close()

    async def aclose(self) -> None:
        self._finish(False)


class Dechunker:
    """Incremental decoder for `Transfer-Encoding: chunked` bodies."""

    __slots__ = ("_buf", "_left", "_state", "done")

    def __init__(self) -> None:
        self._buf = b""
        self._left = 0
        self._state = 0  # 0 size line, 1 data, 2 CRLF after data, 3 trailers
        self.done = False

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._buf + data if self._buf else data
        out: list[bytes] = []
        pos, n = 0, len(buf)
        while not self.done:
            if self._state == 1:
                take = min(self._left, n - pos)
                if take == 0:
                    break
                out.append(buf[pos : pos + take])
                pos += take
                self._left -= take
                if self._left == 0:
                    self._state = 2
            elif self._state == 2:
                if n - pos < 2:
                    break
                if buf[pos : pos + 2] != b"\r\n":
                    raise ProtocolError("malformed chunked body (missing CRLF after chunk)")
                pos += 2
                self._state = 0
            else:
                nl = buf.find(b"\n", pos)
                if nl < 0:
                    if n - pos > 1024:
                        raise ProtocolError("malformed chunked body (chunk size line too long)")
                    break
                line = buf[pos:nl].strip()
                pos = nl + 1
                if self._state == 3:
                    self.done = not line
                    continue
                try:
                    size = int(line.split(b";", 1)[0], 16)
                except ValueError:
                    raise ProtocolError(f"malformed chunk size {line[:20]!r}") from None
                self._left = size
                self._state = 1 if size else 3
        self._buf = buf[pos:]
        return out


_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    h = host.lower().strip("[]")
    return h in _LOOPBACK or h.startswith("127.") or h.endswith(".localhost")


def is_loopback_url(url: str | None) -> bool:
    """True for a URL on this machine (a local model server)."""
    if not url:
        return False
    return is_loopback(urlsplit(url).hostname or "")


def proxy_for(url: str, env: Mapping[str, str]) -> str | None:
    """The proxy URL to use for `url`, from the usual environment variables, or None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or is_loopback(host):
        return None
    scheme = parts.scheme.lower()
    names = ("HTTPS_PROXY", "https_proxy") if scheme == "https" else ("HTTP_PROXY", "http_proxy")
    proxy = next((env[n] for n in (*names, "ALL_PROXY", "all_proxy") if env.get(n)), None)
    if not proxy:
        return None
    no_proxy = env.get("NO_PROXY") or env.get("no_proxy") or ""
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return None
        ehost, _, eport = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if eport and eport != str(port):
            continue
        ehost = ehost.lstrip("*").lstrip(".")
        if host == ehost or host.endswith("." + ehost):
            return None
    return proxy
