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
import importlib
import sys
import types


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
            _import_httpcore()

            import agentcli.net.exchange
            import agentcli.net.mapping  # httpx itself
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


class _Deferred(types.ModuleType):
    """Stands in for a module until one of its attributes is read, then imports the real one and answers from it."""

    def __getattr__(self, name: str) -> object:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


# Imported by httpcore or httpx at their own import, used only on paths agentcli does not take: trio (httpcore's
# trio backend, when the running loop is trio's; with attrs ~60–170 ms of CPU), anyio (its asyncio backend:
# agentcli uses the sync client, net/exchange.py; ~1.5 ms), socksio (SOCKS proxies; ~1.5–3.5 ms) and idna
# (httpx's encoding of a host name that is not ASCII; ~1.5 ms, ~8 M instructions).
_DEFERRED = ("trio", "anyio", "socksio", "idna")
# Imported by httpcore at its import and by httpx at every client's creation (`create_ssl_context`), but read
# only for a default trust store, which agentcli always replaces with its own (net/tls.py): its stand-in stays
# (with the module's real `__spec__`, so `import certifi` does not load it; the standard library's LazyLoader
# would), and its import (with importlib.resources, ~1.5 ms, ~8 M instructions) happens only if something reads it.
_LAZY = ("certifi",)


def _import_httpcore() -> None:
    """Import httpcore and httpx without importing what they import only for paths agentcli does not take
    (`_DEFERRED`, `_LAZY`). While they are imported, `import trio` (anyio, socksio, idna) gets a stand-in that
    imports the real module at its first use, so httpcore under trio, httpx's AsyncClient, a SOCKS proxy or a
    host name in another script in the same process still work."""
    placed = [] if "httpx" in sys.modules else [name for name in _DEFERRED if name not in sys.modules]
    for name in placed:
        sys.modules[name] = _Deferred(name)
    if "httpx" not in sys.modules:
        for name in _LAZY:
            _import_lazily(name)
    try:
        import httpcore  # noqa: F401  (its __init__ imports the HTTP/1.1 connection classes httpx uses)
        import httpx  # noqa: F401
    finally:
        for name in placed:
            if isinstance(sys.modules.get(name), _Deferred):
                del sys.modules[name]


def _import_lazily(name: str) -> None:
    """From now on `import name` gives a stand-in that imports the module at its first attribute read (as
    `_Deferred`), with the module's own spec; nothing when it is imported already or missing."""
    if name in sys.modules:
        return
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = _Deferred(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in
