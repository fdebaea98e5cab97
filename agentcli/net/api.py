"""Calling a JSON API over `HttpClient`: a non-2xx answer becomes the matching agentcli error."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from agentcli.net.errors import ApiIdentity, error_from_status, message_from_body
from agentcli.net.http import HttpClient, Response, Timeouts

if TYPE_CHECKING:
    from agentcli.providers.base import ProviderConfig


async def open_stream(
    client: HttpClient,
    url: str,
    *,
    headers: Mapping[str, str],
    body: Any,
    who: ApiIdentity,
    method: str = "POST",
) -> Response:
    """Send the request; return the response when it succeeded (2xx), else raise the mapped error."""
    resp = await client.send(method, url, headers=headers, json=body)
    await raise_for_status(resp, who)
    return resp


T = TypeVar("T")


async def events_of(resp: Response, parse: Callable[[AsyncIterable[bytes]], AsyncIterator[T]]) -> AsyncIterator[T]:
    """What `parse` makes of a streaming response's body; the response is closed however the stream ends."""
    try:
        async for ev in parse(resp.aiter_bytes()):
            yield ev
    finally:
        await resp.aclose()


async def raise_for_status(resp: Response, who: ApiIdentity, *, hint: str | None = None) -> None:
    """Nothing for a 2xx response; otherwise read the error body, close, and raise the mapped error
    (with `hint` replacing the default one when given)."""
    if 200 <= resp.status < 300:
        return
    raw = await resp.read()
    message, error_type = message_from_body(raw)
    err = error_from_status(resp.status, message or resp.reason, who, headers=resp.headers,
                            error_type=error_type)
    if hint is not None:
        err.hint = hint
    raise err


def join_url(base: str, path: str) -> str:
    """`base` + `path` with exactly one slash between them."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def client_for(cfg: ProviderConfig) -> HttpClient:
    """The HTTP client an adapter uses: the config's connect timeout, and its request timeout both for the first
    byte and for each idle read."""
    return HttpClient(Timeouts(cfg.connect_timeout_s, cfg.request_timeout_s, cfg.request_timeout_s))
