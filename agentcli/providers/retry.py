"""Retries around a provider stream: exponential backoff with jitter, `retry-after` honoured (capped).

Retried: errors whose class is `retryable` (rate_limit, overloaded, timeout, unavailable — HTTP 408, 409, 429,
5xx, 529, an in-stream server error; the net layer decides which connection failures are safe to resend),
whether the stream broke before any output or in the middle of a reply (text, thinking or a half-sent tool call
alike). A retry after output is announced with
`ApiRetry(discarded=True)`: consumers drop what that attempt streamed, and the new response starts over. Nothing
has reached the transcript by then (the loop appends a message only when its stream completes).

A stream cut (the connection dropped or went silent after the response had begun) is retried too, although the
net layer never resends a request on its own: at that point nothing irreversible has happened — no tool runs
before a stream completes, and the front ends print a reply only once it is whole (or mark a discarded one). A
connection closed before any response byte is still not resent (the server may be working on it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agentcli.errors import ProviderError
from agentcli.llm.stream import ApiRetry, Notice, StreamEvent, UsageReport
from agentcli.net.errors import ConnectionDropped, NetTimeout
from agentcli.providers.base import ModelRequest, Provider, ProviderConfig
from agentcli.redact import redact

Sleep = Callable[[float], Awaitable[Any]]


def backoff_delay(attempt: int, err: ProviderError, cfg: ProviderConfig, rng: Callable[[], float]) -> float:
    """Seconds to wait before retry number `attempt` (1-based)."""
    if err.retry_after is not None:
        return min(max(0.0, err.retry_after), cfg.retry_max_delay_s)
    delay: float = min(cfg.retry_base_delay_s * 2.0 ** (attempt - 1), cfg.retry_max_delay_s)
    return delay * (1 - 0.25 * rng())


async def stream_with_retries(
    factory: Callable[[], AsyncIterator[StreamEvent]],
    cfg: ProviderConfig,
    *,
    sleep: Sleep = asyncio.sleep,
    rng: Callable[[], float] | None = None,
) -> AsyncIterator[StreamEvent]:
    """Run `factory()` streams until one completes; yield `ApiRetry` before each wait."""
    attempt = 0
    while True:
        stream = factory()
        produced = started = False
        try:
            async for ev in stream:
                started = True
                if not produced and not isinstance(ev, UsageReport | ApiRetry | Notice):
                    produced = True
                yield ev
            return
        except ProviderError as err:
            cut = not err.retryable and _cut(err, started)
            if not (err.retryable or cut) or attempt >= cfg.max_retries:
                raise
            attempt += 1
            if rng is None:
                import random  # only when a retry happens: not worth its import on every run

                rng = random.random
            delay = backoff_delay(attempt, err, cfg, rng)
            # A cut's hint ("not sent again automatically") would be false here: say what happens instead.
            message = f"{redact(err.message)} (the stream was cut; asking again)" if cut else err.one_line()
            yield ApiRetry(attempt, cfg.max_retries, delay, err.code, message, err.status, discarded=produced)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        await sleep(delay)


def _cut(err: ProviderError, started: bool) -> bool:
    """Did the stream break after the response had begun (a cut, safe to ask again), not before it?"""
    if isinstance(err, NetTimeout):
        return started or err.phase == "read"
    return isinstance(err, ConnectionDropped) and started


class RetryingProvider:
    """A Provider whose `stream` retries the wrapped provider's stream (see module docstring)."""

    def __init__(self, inner: Provider, cfg: ProviderConfig) -> None:
        self.inner = inner
        self.cfg = cfg
        self.name = inner.name

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return stream_with_retries(lambda: self.inner.stream(request), self.cfg)

    async def aclose(self) -> None:
        await self.inner.aclose()
