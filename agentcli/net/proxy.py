"""The proxied path of `HttpClient`: httpx (imported only here), behind the same `Response` shape."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agentcli.net.errors import ConnectError, ConnectionDropped, NetTimeout, ProtocolError
from agentcli.net.http import Response, Timeouts

if TYPE_CHECKING:
    import httpx


class HttpxTransport:
    """Sends requests through `proxy` with httpx."""

    def __init__(self, proxy: str) -> None:
        import httpx

        self._httpx = httpx
        self._client = httpx.AsyncClient(proxy=proxy, trust_env=False)

    async def send(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None, t: Timeouts
    ) -> Response:
        httpx = self._httpx
        read = max(t.first_byte, t.read)
        timeout = httpx.Timeout(connect=t.connect, read=read, write=t.connect, pool=t.connect)
        req = self._client.build_request(method, url, headers=headers, content=body, timeout=timeout)
        try:
            resp = await self._client.send(req, stream=True)
        except Exception as e:
            raise map_httpx_error(e, "sending the request") from None
        headers_out: dict[str, str] = {}
        for k, v in resp.headers.multi_items():
            key = k.lower()
            headers_out[key] = f"{headers_out[key]}, {v}" if key in headers_out else v
        return _HttpxResponse(resp, headers_out)

    async def aclose(self) -> None:
        await self._client.aclose()


class _HttpxResponse(Response):
    def __init__(self, resp: httpx.Response, headers: dict[str, str]) -> None:
        super().__init__(resp.status_code, resp.reason_phrase, headers)
        self._resp = resp

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        try:
            async for piece in self._resp.aiter_raw():
                yield piece
        except Exception as e:
            raise map_httpx_error(e, "reading the response") from None
        finally:
            await self._resp.aclose()

    async def aclose(self) -> None:
        await self._resp.aclose()


def map_httpx_error(e: Exception, doing: str) -> Exception:
    """An httpx exception as the matching `agentcli.net.errors` error (others pass through)."""
    import httpx

    if isinstance(e, httpx.ConnectTimeout):
        return NetTimeout(f"connect timed out while {doing}", phase="connect")
    if isinstance(e, httpx.TimeoutException):
        return NetTimeout(f"timed out while {doing}", phase="read")
    if isinstance(e, httpx.ConnectError | httpx.ProxyError):
        return ConnectError(f"cannot connect while {doing}: {e}")
    if isinstance(e, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ConnectionDropped(f"connection failed while {doing}: {e}")
    if isinstance(e, httpx.HTTPError):
        return ProtocolError(f"HTTP failure while {doing}: {e}")
    return e
