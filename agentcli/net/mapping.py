"""httpx, set up and spoken to the agentcli way: the client factory, timeouts, and httpx errors → the error tree.

Imported only when a request is about to be sent (it imports httpx)."""

from __future__ import annotations

import socket
import ssl
from urllib.parse import urlsplit

import httpx

from agentcli.errors import AgentCliError, ConfigError
from agentcli.net.addr import is_loopback_url
from agentcli.net.errors import (
    NOT_RESENT,
    ConnectError,
    ConnectionDropped,
    ConnectTimeout,
    HostNotFound,
    LocalServerDown,
    NetTimeout,
    ProtocolError,
    ProxyFailure,
    TlsError,
)
from agentcli.net.timeouts import Timeouts

_CA_HINT = ("if a proxy or firewall inspects TLS here, point SSL_CERT_FILE (or SSL_CERT_DIR) at its CA bundle; "
            "otherwise check the base URL")


def timeout_of(t: Timeouts) -> httpx.Timeout:
    """httpx's timeouts for ours: one read limit covering the wait for headers and each idle body read (the
    shorter of the two is enforced by the caller), sending the body as long as reading it."""
    slow = max(t.first_byte, t.read)
    return httpx.Timeout(connect=t.connect, read=slow, write=slow, pool=t.connect)


def new_client(proxy: str | None, ctx: ssl.SSLContext, t: Timeouts) -> httpx.Client:
    """An httpx client for one route: direct (`proxy` None) or through `proxy`, trusting `ctx`."""
    try:
        via = None
        if proxy:  # the proxy's own certificate is checked with the same store (httpcore refuses one for http://)
            via = httpx.Proxy(proxy, ssl_context=ctx) if proxy.lower().startswith("https:") else httpx.Proxy(proxy)
        return httpx.Client(proxy=via, verify=ctx, trust_env=False, follow_redirects=False,
                                 timeout=timeout_of(t))
    except ImportError:
        raise ConfigError("a SOCKS proxy is configured, but the socksio package is not installed",
                          hint="pip install 'httpx[socks]', or use an http:// proxy") from None
    except (ValueError, httpx.InvalidURL) as e:
        raise ConfigError(f"the proxy URL is not usable: {_no_userinfo(str(e))}",
                          hint="check HTTPS_PROXY / HTTP_PROXY / ALL_PROXY") from None


def map_httpx_error(e: BaseException, url: str, *, phase: str, proxy: str | None = None) -> BaseException:
    """The agentcli error for an httpx (or ssl / socket) failure while sending `url` through `proxy` (others pass
    through). `phase`: connect (building the request), first_byte (sending it, waiting for headers) or read."""
    if isinstance(e, AgentCliError) or not isinstance(e, Exception):
        return e
    origin = _origin(url)
    if isinstance(e, httpx.ConnectTimeout | httpx.PoolTimeout):
        return ConnectTimeout(f"connecting to {origin} timed out", phase="connect")
    if isinstance(e, httpx.ProxyError):
        return ProxyFailure(f"the proxy failed for {origin}: {_no_userinfo(str(e))}",
                            hint="check HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY")
    if isinstance(e, httpx.ConnectError):
        return _connect_error(e, url, origin, proxy)
    if isinstance(e, httpx.ReadTimeout | httpx.WriteTimeout):
        if phase == "read":
            return NetTimeout(f"{origin} sent nothing for too long mid-response", phase="read", hint=NOT_RESENT)
        return NetTimeout(f"no response from {origin} in time", phase="first_byte", hint=NOT_RESENT)
    if isinstance(e, httpx.RemoteProtocolError) and _is_disconnect(str(e)):
        if phase == "read":
            return ConnectionDropped(f"the connection to {origin} closed in the middle of the response",
                                     hint=NOT_RESENT)
        return ConnectionDropped(f"{origin} closed the connection after receiving the request, before responding",
                                 hint=NOT_RESENT)
    if isinstance(e, httpx.ReadError | httpx.WriteError):
        where = "in the middle of the response" if phase == "read" else "before the response"
        return ConnectionDropped(f"the connection to {origin} failed {where}: {_reason(e)}", hint=NOT_RESENT)
    if isinstance(e, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ConfigError(f"not a usable http(s) URL: {origin} ({e})", hint="check the base URL")
    if isinstance(e, httpx.LocalProtocolError):
        return ConfigError(f"cannot send this request to {origin}: {e}", hint="check configured headers and keys")
    if isinstance(e, httpx.HTTPError | ssl.SSLError):
        return ProtocolError(f"{origin} did not speak valid HTTP/1.1: {_reason(e)}", hint=NOT_RESENT)
    return e


def _connect_error(e: httpx.ConnectError, url: str, origin: str, proxy: str | None) -> ConnectError:
    cause = _root(e)
    if isinstance(cause, ssl.SSLCertVerificationError):
        host = urlsplit(url).hostname or origin
        why = cause.verify_message or "verification failed"
        if cause.verify_code in (62, 64):  # X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
            return TlsError(f"TLS: the certificate of {origin} is not valid for {host} ({why})",
                            hint="check the host name in the base URL")
        return TlsError(f"TLS: the certificate of {origin} is not trusted ({why})", hint=_CA_HINT)
    if isinstance(cause, ssl.SSLError):
        return TlsError(f"TLS handshake with {origin} failed: {cause.reason or cause}", hint=_CA_HINT)
    if isinstance(cause, socket.gaierror) and cause.errno in _NO_SUCH_NAME and proxy is None:
        host = urlsplit(url).hostname or origin
        return HostNotFound(f"cannot connect to {origin}: the host name {host!r} does not resolve",
                            hint="check the host name in the base URL (a local server: http://127.0.0.1:PORT/v1)")
    reason = _reason(e)
    if proxy is not None:
        return ProxyFailure(f"cannot reach the proxy {_origin(proxy)} (for {origin}): {reason}",
                            hint="check HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY")
    if is_loopback_url(url):
        return LocalServerDown(
            f"nothing is answering at {origin} ({reason})",
            hint=f"start the local model server (llama-server --port N, ollama serve, vllm serve …) or fix the base "
                 f"URL; check it with: curl {origin}/v1/models")
    return ConnectError(f"cannot connect to {origin}: {reason}")


# getaddrinfo's answers that a retry would only repeat: no such name, no address for it (EAI_AGAIN, a resolver
# that did not answer in time, stays retryable)
_NO_SUCH_NAME = frozenset(getattr(socket, n) for n in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, n))


def _root(e: BaseException) -> BaseException:
    seen: set[int] = set()
    while id(e) not in seen:
        seen.add(id(e))
        nxt = e.__cause__ or e.__context__
        if nxt is None:
            break
        e = nxt
    return e


def _reason(e: BaseException) -> str:
    root = _root(e)
    if isinstance(root, OSError) and root.errno:
        import os

        return os.strerror(root.errno).lower()  # "connection refused", not "Connect call failed ('::1', 80)"
    if isinstance(root, OSError) and root.strerror:
        return root.strerror
    text = str(root) or str(e) or type(root).__name__
    return _no_userinfo(text)


def _is_disconnect(text: str) -> bool:
    t = text.lower()
    return "disconnected" in t or "closed connection" in t or "peer closed" in t


def _origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc.rpartition('@')[2]}"


def _no_userinfo(text: str) -> str:
    """`text` with a URL's credentials (proxy URLs carry them) and any other secret shape redacted."""
    from agentcli.redact import redact

    return redact(text)
