"""The HTTP client every provider request goes through: httpx (the sync `Client` on a worker thread per request,
HTTP/1.1 framed by h11; `net/exchange.py` says why not `AsyncClient`).

What agentcli adds around it, and why:
- one trust store (`net/tls.py`) and one proxy decision (`net/proxy.py`, with `NO_PROXY` CIDR ranges) for
  every request; httpx's own environment reading is off (`trust_env=False`: it would also read `.netrc`);
- a POST that may have reached the server is never sent twice: httpx itself retries nothing (its transport
  `retries` only covers connecting, and we leave it at 0), its pool drops a kept-alive connection the server
  closed before reusing it, and the errors raised here are retryable only when the connection never opened;
- connection refused on a loopback URL fails at once, with a hint to start or check the local server;
- the body is handed on per network read (`net/exchange.py`), not per HTTP chunk, so the stream decoders batch;
- errors become members of the agentcli error tree (`net/errors.py`), with keys redacted.

httpx is imported when the first request is sent (or earlier, in the background: `net/preload.py`), so
`agentcli --version` and making a provider object cost nothing.

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
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentcli.errors import ConfigError
from agentcli.net.addr import is_loopback, is_loopback_url
from agentcli.net.proxy import proxy_for
from agentcli.net.timeouts import Timeouts as Timeouts

if TYPE_CHECKING:
    import ssl

    import httpx

    from agentcli.net.exchange import Exchange

__all__ = ["HttpClient", "Response", "Timeouts", "is_loopback", "is_loopback_url", "proxy_for"]

USER_AGENT = "agentcli"
_ERROR_BODY_CAP = 1 << 20


class Response:
    """Status and headers of a response whose body has not been read yet."""

    def __init__(self, exchange: Exchange, resp: httpx.Response, read_timeout: float | None) -> None:
        self._exchange = exchange
        self._url = str(resp.request.url)
        self._read_timeout = read_timeout  # set when shorter than what httpx was given (the first-byte limit)
        self.status = resp.status_code
        self.reason = resp.reason_phrase
        self.headers: Mapping[str, str] = resp.headers  # case-insensitive; repeated headers joined with ", "

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, de-chunked, one piece per network read (what arrived together stays together)."""
        from agentcli.net.mapping import map_httpx_error

        try:
            if self._read_timeout is None:
                async for piece in self._exchange:
                    yield piece
            else:
                while True:
                    async with asyncio.timeout(self._read_timeout):
                        piece = await anext(self._exchange, b"")
                    if not piece:  # the exchange never hands on an empty piece
                        break
                    yield piece
        except TimeoutError:
            from agentcli.net.errors import NOT_RESENT, NetTimeout

            raise NetTimeout(f"the server sent nothing for {self._read_timeout:g}s", phase="read",
                             hint=NOT_RESENT) from None
        except Exception as e:
            raise map_httpx_error(e, self._url, phase="read") from None
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        await self._exchange.aclose()

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


class HttpClient:
    """Sends requests through httpx. One per provider instance; holds one httpx client per route (direct, or
    a given proxy) so kept-alive connections are reused."""

    def __init__(
        self,
        timeouts: Timeouts | None = None,
        *,
        env: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """`env` replaces os.environ for proxy and trust-store lookup; `ssl_context` replaces the trust store."""
        self.timeouts = timeouts or Timeouts()
        self._env = env
        self._ssl = ssl_context
        self._clients: dict[tuple[str | None, bool], httpx.Client] = {}

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
        client, proxy = self._route(url)
        from agentcli.net.exchange import Exchange
        from agentcli.net.mapping import map_httpx_error, timeout_of

        try:
            req = client.build_request(method, url, headers=hdrs, content=body, timeout=timeout_of(t))
        except Exception as e:
            raise map_httpx_error(e, url, phase="connect", proxy=proxy) from None
        # A cancellation already requested of this task (an interrupt answered while a tool call was being
        # approved) is delivered here, before the worker sends anything, as the async client's first await did.
        await asyncio.sleep(0)
        exchange = Exchange(client, req)
        try:
            if t.first_byte < t.read:
                async with asyncio.timeout(t.first_byte):
                    resp = await exchange.head()
            else:
                resp = await exchange.head()
        except TimeoutError:
            await exchange.aclose()
            from agentcli.net.errors import NOT_RESENT, NetTimeout

            raise NetTimeout(f"no response from {_origin(url)} within {t.first_byte:g}s", phase="first_byte",
                             hint=NOT_RESENT) from None
        except asyncio.CancelledError:
            await exchange.aclose()
            raise
        except Exception as e:
            raise map_httpx_error(e, url, phase="first_byte", proxy=proxy) from None
        return Response(exchange, resp, t.read if t.read < t.first_byte else None)

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for c in clients.values():
            c.close()

    def _route(self, url: str) -> tuple[httpx.Client, str | None]:
        """The httpx client for `url` and the proxy it goes through (None: direct)."""
        env = os.environ if self._env is None else self._env
        try:
            parts = urlsplit(url)
        except ValueError:
            raise ConfigError(f"not a valid URL: {url!r}") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"not an http(s) URL: {url!r}", hint="check the base URL")
        proxy = proxy_for(url, env)
        tls = parts.scheme.lower() == "https" or (proxy or "").lower().startswith("https:")
        key = (proxy, tls)
        client = self._clients.get(key)
        if client is None:
            from agentcli.net.preload import ensure

            ensure()
            from agentcli.net.mapping import new_client
            from agentcli.net.tls import no_tls_context, trust_context

            ctx = self._ssl or (trust_context(env) if tls else no_tls_context())
            client = self._clients[key] = new_client(proxy, ctx, self.timeouts)
        return client, proxy


def _origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc.rpartition('@')[2]}"


def _clean_header(name: str, value: str) -> str:
    v = str(value).strip()
    if "\r" in v or "\n" in v or "\r" in name or "\n" in name:
        raise ConfigError(f"header {name!r} contains a line break; check the configured key or header")
    if not v.isascii():
        raise ConfigError(f"header {name!r} contains non-ASCII characters; check the configured key or header "
                          "(a pasted key may carry a stray quote or space)")
    return v
