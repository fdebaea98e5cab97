"""OTLP over HTTP, sent with the project's own httpx (already loaded by every run that talks to a model).

The official `opentelemetry-exporter-otlp-proto-http` sends with `requests` + urllib3 (+ charset_normalizer),
~45–60 ms of CPU to import here for one POST at exit; this module carries the bytes the official encoder
(`opentelemetry-exporter-otlp-proto-common`) made. What it reads is the exporters' standard environment, per
signal first (`OTEL_EXPORTER_OTLP_TRACES_*`, `…_METRICS_*`), then the general one: `…_ENDPOINT`, `…_HEADERS`,
`…_TIMEOUT` (seconds, as the Python SDK reads it), `…_COMPRESSION` (gzip), `…_CERTIFICATE`,
`…_CLIENT_CERTIFICATE` / `…_CLIENT_KEY`, `…_PROTOCOL` (http/protobuf or http/json). Proxies and the trust store
are agentcli's (`net/proxy.py`, `net/tls.py`).

An export is bounded by its timeout and by the exit deadline: once the run is ending nothing is retried and no
request outlives the deadline.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from agentcli.errors import ConfigError

if TYPE_CHECKING:
    import ssl

    import httpx

Signal = Literal["traces", "metrics"]
Protocol = Literal["http/protobuf", "http/json"]

DEFAULT_ENDPOINT = "http://localhost:4318"
MAX_RESPONSE_BYTES = 65536  # of a collector's answer (an OTLP answer is a few bytes; its status is what counts)
EXPORT_TIMEOUT_S = 1.5  # per export, retries included (the SDK's default of 10 s would hold a REPL's flush)
_RETRYABLE: frozenset[int | str] = frozenset({429, 502, 503, 504, "ConnectError"})

log = logging.getLogger("agentcli.telemetry")


def _env(signal: Signal, name: str, env: Mapping[str, str]) -> str:
    return (env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_{name}") or env.get(f"OTEL_EXPORTER_OTLP_{name}")
            or "").strip()


def protocol_of(signal: Signal, env: Mapping[str, str] | None = None) -> tuple[Protocol, str | None]:
    """The wire format for `signal`, and a notice when the one asked for (grpc) is not spoken."""
    asked = _env(signal, "PROTOCOL", os.environ if env is None else env) or "http/protobuf"
    if asked in ("http/protobuf", "http/json"):
        return asked, None  # type: ignore[return-value]
    return "http/protobuf", f"OTEL_EXPORTER_OTLP_PROTOCOL={asked} is not supported; telemetry is sent as http/protobuf"


def enabled(signal: Signal, env: Mapping[str, str] | None = None) -> bool:
    """`OTEL_TRACES_EXPORTER=none` / `OTEL_METRICS_EXPORTER=none` turn one signal off (the standard switch)."""
    e = os.environ if env is None else env
    return e.get(f"OTEL_{signal.upper()}_EXPORTER", "otlp").strip().lower() != "none"


class Target:
    """Where and how one signal is sent. (A plain class: a dataclass takes ~0.5 ms to define.)"""

    __slots__ = ("gzip", "headers", "protocol", "timeout_s", "url")

    def __init__(self, url: str, headers: dict[str, str], timeout_s: float, gzip: bool, protocol: Protocol) -> None:
        self.url, self.headers, self.timeout_s, self.gzip, self.protocol = url, headers, timeout_s, gzip, protocol

    @staticmethod
    def from_env(signal: Signal, env: Mapping[str, str] | None = None) -> Target:
        e = os.environ if env is None else env
        var = f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT"
        url = e.get(var, "").strip()
        if not url:  # the general endpoint is a base the signal's path is appended to; the per-signal one is whole
            var, base = "OTEL_EXPORTER_OTLP_ENDPOINT", e.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
            url = f"{(base or DEFAULT_ENDPOINT).rstrip('/')}/v1/{signal}"
        if not _usable(url):
            raise ConfigError(f"{var}={_shown(e.get(var, ''))} is not an http(s) URL",
                              hint="set it to the collector's OTLP/HTTP address, e.g. http://localhost:4318")
        protocol, _ = protocol_of(signal, e)
        headers = {"content-type": "application/json" if protocol == "http/json" else "application/x-protobuf",
                   "user-agent": "agentcli-otlp"}
        if raw := _env(signal, "HEADERS", e):
            from opentelemetry.util.re import parse_env_headers

            headers |= parse_env_headers(raw, liberal=True)
        compression = _env(signal, "COMPRESSION", e).lower()
        if compression == "gzip":
            headers["content-encoding"] = "gzip"
        timeout = EXPORT_TIMEOUT_S
        if raw_timeout := _env(signal, "TIMEOUT", e):
            try:
                timeout = float(raw_timeout)
            except ValueError:
                raise ConfigError(f"OTEL_EXPORTER_OTLP_TIMEOUT={raw_timeout} is not a number of seconds") from None
        return Target(url, headers, timeout, compression == "gzip", protocol)


class Sender:
    """POSTs encoded requests for one signal over one kept-alive httpx connection (exports are serial per
    signal: the SDK's batch processor and metric reader each hold a lock around `export`)."""

    def __init__(self, signal: Signal, target: Target, env: Mapping[str, str] | None = None) -> None:
        self.signal, self.target = signal, target
        self._env = os.environ if env is None else env
        # The TLS context now (a bad client certificate is reported as telemetry failing to start); the client
        # itself by `open`, from the thread that runs the agent: importing httpx here, on telemetry's import
        # thread, could meet the run's own first import of httpx/httpcore halfway (their modules import each
        # other) and leave one side with a partly initialised module.
        self._tls = _ssl_context(signal, target.url, self._env)
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self.deadline: float | None = None  # monotonic; set by `end`: no retry, nothing past it
        self._ending = threading.Event()  # wakes a retry's backoff when the exit comes
        self._reported = False
        self.timed_out_at_exit = False  # an export the exit was waiting for gave up: the exit says it is lost
        self.closed = False  # after the exit's flush: nothing more is sent

    def open(self) -> None:
        """Make the HTTP client now (so the exit does not), on a thread that has imported httpx already."""
        with self._lock:
            self._opened()

    def _opened(self) -> httpx.Client | None:
        """The client, made if need be (None, reported once, if it cannot be); under `_lock`."""
        if self._client is None and not self.closed:
            try:
                self._client = self._open()
            except Exception as e:  # the run goes on without telemetry rather than fail on it
                self._failed(f"no HTTP client: {type(e).__name__}")  # (its text may hold a proxy URL)
        return self._client

    def _open(self) -> httpx.Client:
        from agentcli.net.preload import ensure

        ensure()  # never beside another thread's import of the stack
        import httpx

        from agentcli.net.proxy import proxy_for

        return httpx.Client(verify=self._tls, trust_env=False, proxy=proxy_for(self.target.url, self._env),
                            follow_redirects=False)

    def post(self, body: bytes) -> bool:
        """Send one export request; True when the collector took it. Connection failures and 429/502/503/504
        are retried with a backoff within the export's timeout, but not once the run is ending."""
        if self.closed:
            return False
        if self.target.gzip:
            import gzip

            body = gzip.compress(body, 6)
        end = time.monotonic() + self.target.timeout_s
        delay = 0.1
        with self._lock:
            client = self._opened()
            if client is None:
                return False
            while True:
                if self.deadline is not None:
                    end = min(end, self.deadline)
                left = end - time.monotonic()
                status = self._attempt(client, body, left, end) if left > 0 else "timed out"
                if status == 200:
                    return True
                if status not in _RETRYABLE or self.deadline is not None or time.monotonic() + delay >= end:
                    self._failed(status)
                    return False
                if self._ending.wait(delay):  # a backoff on the exporter's thread, cut short by the exit: no retry
                    self._failed(status)
                    return False
                delay *= 2

    def end(self, deadline: float) -> None:
        """The process is ending: exports still going on stop retrying, and none goes past `deadline`."""
        self.deadline = deadline
        self._ending.set()

    @property
    def where(self) -> str:
        return _shown(self.target.url)

    def _failed(self, why: int | str) -> None:
        if why == "timed out" and self.deadline is not None:
            # The exit reports it, whether it is still waiting for this thread at its deadline or this export's
            # own timeout ended first (the thread is then over, so only this flag tells the exit it was lost).
            self.timed_out_at_exit = True
            return
        if not self._reported:  # once: a collector that is down would otherwise speak every few seconds
            self._reported = True
            log.warning("telemetry: OTLP %s export to %s failed (%s); further failures are not reported",
                        self.signal, self.where, f"HTTP {why}" if isinstance(why, int) else why)

    def _attempt(self, client: httpx.Client, body: bytes, left: float, end: float) -> int | str:
        """The response's status (any 2xx as 200), or why there was none. Only the status matters: at most
        `MAX_RESPONSE_BYTES` of the body are read, and none after `end` (httpx's timeout bounds each read, not
        the whole): a collector answering hugely or a byte at a time costs neither memory nor the exit's time."""
        import httpx

        try:
            with client.stream("POST", self.target.url, content=body, headers=self.target.headers,
                               timeout=left) as resp:
                read = 0
                for chunk in resp.iter_raw():  # (no chunk size: one would wait to fill it)
                    read += len(chunk)
                    if read > MAX_RESPONSE_BYTES or time.monotonic() > end:
                        break  # leaving the block closes the connection: the rest is never read
        except httpx.TimeoutException:
            return "timed out"
        except httpx.HTTPError as e:
            return type(e).__name__
        return 200 if 200 <= resp.status_code < 300 else resp.status_code

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()


def _ssl_context(signal: Signal, url: str, env: Mapping[str, str]) -> ssl.SSLContext:
    from agentcli.net.tls import no_tls_context, trust_context

    if not url.lower().startswith("https://"):
        return no_tls_context()
    ca = _env(signal, "CERTIFICATE", env)
    cert, key = _env(signal, "CLIENT_CERTIFICATE", env), _env(signal, "CLIENT_KEY", env)
    if not cert:
        return trust_context({**env, "SSL_CERT_FILE": ca, "SSL_CERT_DIR": ""} if ca else env)
    import ssl

    try:  # a context of its own: the shared, cached one must not carry this client's identity
        ctx = ssl.create_default_context(cafile=ca or None)
        ctx.load_cert_chain(cert, key or None)
    except (OSError, ssl.SSLError) as e:
        raise ConfigError(f"cannot load the OTLP client certificate {cert}: {e}",
                          hint="OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE / _CLIENT_KEY must be PEM files") from None
    return ctx


def _shown(url: str) -> str:
    """`url` without user:password@ (a collector's credentials never reach a message)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        if not parts.scheme or not parts.netloc:
            raise ValueError
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"
    except ValueError:
        return url.rsplit("@", 1)[-1]


def _usable(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a port that is not a number, or out of range
        return False
