"""The one trust store, used for every TLS connection agentcli makes (direct, through a proxy, to the proxy).

`SSL_CERT_FILE` / `SSL_CERT_DIR` replace the system store when set (a corporate proxy that inspects TLS hands
out its CA this way), as OpenSSL, curl and Python's own `ssl` do. Otherwise the system store; certifi's bundle
only when the system has none (a bare container). httpx alone would use certifi even when the system store holds
the corporate CA, and honours the variables only with `trust_env`, which also reads `.netrc`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agentcli.errors import ConfigError

if TYPE_CHECKING:
    import ssl


def trust_context(env: Mapping[str, str] | None = None) -> ssl.SSLContext:
    """A client SSLContext (hostname checking on) trusting the CAs named by `env` (default: os.environ)."""
    e = os.environ if env is None else env
    cafile, capath = e.get("SSL_CERT_FILE") or None, e.get("SSL_CERT_DIR") or None
    for name, value, ok in (("SSL_CERT_FILE", cafile, os.path.isfile), ("SSL_CERT_DIR", capath, os.path.isdir)):
        if value is not None and not ok(value):
            raise ConfigError(f"{name}={value} does not exist",
                              hint=f"point {name} at your CA bundle, or unset it to use the system's")
    return _context(cafile, capath)


@functools.lru_cache(maxsize=4)
def _context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    # Cached: loading a CA bundle costs ~20 ms, and every client of the process can share one context.
    import ssl

    if cafile or capath:
        try:
            return ssl.create_default_context(cafile=cafile, capath=capath)
        except (OSError, ssl.SSLError) as e:
            raise ConfigError(f"cannot load the CA certificates from {cafile or capath}: {e}",
                              hint="SSL_CERT_FILE must be a PEM bundle, SSL_CERT_DIR a hashed directory") from None
    ctx = ssl.create_default_context()
    paths = ssl.get_default_verify_paths()
    if not ctx.cert_store_stats()["x509_ca"] and not (paths.capath and _has_files(paths.capath)):
        import certifi

        ctx.load_verify_locations(cafile=certifi.where())
    return ctx


def _has_files(path: str) -> bool:
    try:
        with os.scandir(path) as it:
            return any(True for _ in it)
    except OSError:
        return False


def no_tls_context() -> ssl.SSLContext:
    """For clients that only speak plain HTTP: verification on and no CA loaded, so any TLS use would fail
    closed (and the ~20 ms of loading a bundle is not paid by runs against a local http:// server)."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
