"""Loads the HTTP stack in a background thread while the run is being assembled, so the first request does not
wait for it.

httpx with httpcore, h11 and anyio costs ~40–70 ms of imports here, and loading the CA bundle ~20 ms; a `-p`
run spends longer than that reading settings, opening its session and building its prompt before its first
request. Starting this thread first overlaps the two. Nothing depends on it: if it has not finished (or failed),
the first request imports what it needs itself.

Every import of the stack at run time goes through `ensure()`, one thread at a time: httpx, httpcore and anyio
import each other, and two threads importing them at once can deadlock on the module locks, which Python breaks
by handing one of them the other's half-built module (seen: `module 'httpcore' has no attribute
'AsyncConnectionPool'`, with this thread, MCP's and telemetry's importing together).
"""

from __future__ import annotations

import _thread


def start_for(base_url: str | None) -> None:
    """`start` for a provider whose base URL is `base_url` (None: the provider's default, an https API)."""
    start(tls=not base_url or base_url.lower().startswith("https:"))


def start(tls: bool) -> None:
    """Begin loading in a background thread; `tls`: also load the trust store (an https base URL). Started
    with `_thread`: `threading.Thread.start()` would block start-up until the new thread is scheduled
    (milliseconds on a busy machine). Like a daemon thread, nothing waits for it at exit."""
    _thread.start_new_thread(_load, (tls,))


_lock = _thread.allocate_lock()
_ready = False


def ensure() -> None:
    """Import the HTTP stack on this thread unless it is imported already; while another thread imports it, wait
    for that thread instead of importing beside it."""
    global _ready
    if _ready:
        return
    with _lock:
        if not _ready:
            import anyio._backends._asyncio  # noqa: F401 - what httpcore loads at its first connection
            import httpcore._async.http11  # noqa: F401

            import agentcli.net.mapping  # httpx itself
            import agentcli.net.reads
            import agentcli.net.tls  # noqa: F401

            _ready = True


def _load(tls: bool) -> None:
    try:
        ensure()
        if tls:
            from agentcli.net.tls import trust_context

            trust_context()
    except Exception:  # the first request loads it and reports any error itself
        pass
