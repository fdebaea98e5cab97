"""Network failures, as members of the agentcli error tree, so adapters need no second mapping.

    UnavailableError
    ├── ConnectError         refused, DNS failure: the request was never sent, so it may be retried
    │   ├── LocalServerDown  nothing listens at a loopback URL: fails at once with a hint (no retries)
    │   ├── TlsError         certificate or hostname check failed (code `tls`, not retried)
    │   └── ProxyFailure     the proxy refused or failed the tunnel (code `proxy`, not retried)
    ├── ConnectionDropped    the connection failed after the request was sent: not retried
    └── ProtocolError        the bytes were not valid HTTP/1.1: not retried
    ProviderTimeoutError
    └── NetTimeout           no response / an idle body after the request was sent: not retried
        └── ConnectTimeout   opening the connection took too long: retried

Only failures that prove the request never left this machine are retried (plus HTTP error statuses, where the
server said it did not do the work): a POST that may have reached the server is never sent again on its own,
so a dropped connection can never bill a request twice.

`error_from_status` / `error_from_event` turn HTTP error responses and in-stream errors into the tree, with
secrets removed by the one redactor (`agentcli.redact`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from agentcli.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    OverloadedError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    UnavailableError,
)
from agentcli.record import record
from agentcli.redact import redact


class ConnectError(UnavailableError):
    """Could not open a connection (refused, unknown host): nothing was sent."""


class LocalServerDown(ConnectError):
    """A loopback URL refused the connection: the local model server is not running. Retrying will not start
    it, so this fails at once with a hint naming the URL."""

    retryable = False


class HostNotFound(ConnectError):
    """The host name does not resolve (not a passing failure of the resolver): asking again gives the same
    answer, so it fails at once instead of after four retries."""

    code = "host_not_found"
    retryable = False


class TlsError(ConnectError):
    """The server's certificate was not trusted or not valid for its name."""

    code = "tls"
    exit_status = 1
    retryable = False


class ProxyFailure(ConnectError):
    """The configured proxy failed or refused the connection."""

    code = "proxy"
    exit_status = 1
    retryable = False


class ConnectionDropped(UnavailableError):
    """The connection failed after the request was sent. The server may have processed (and billed) it, so it is
    not sent again automatically."""

    retryable = False


class ProtocolError(UnavailableError):
    """The server sent something that is not HTTP/1.1."""

    retryable = False


class NetTimeout(ProviderTimeoutError):
    """A timeout after the request was sent; `phase` is first_byte or read. Not retried (see ConnectionDropped)."""

    retryable = False

    def __init__(self, message: str, *, phase: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.phase = phase


class ConnectTimeout(NetTimeout):
    """Opening the connection timed out: nothing was sent."""

    retryable = True


NOT_RESENT = "not sent again automatically, since the server may have processed (and billed) it; run it again if needed"


# ---- HTTP error responses → the error tree ---------------------------------------------------------------

_CONTEXT_WORDING = re.compile(
    r"context[ _-]?(length|window|size)|prompt is too long|maximum context|too many tokens|"
    r"exceeds? the (available )?context|input is too long|reduce the length|"
    r"exceeds the maximum number of tokens|input token count",
    re.IGNORECASE,
)
_TYPE_STATUS = {
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "api_error": 500,
    "server_error": 500,
    "overloaded_error": 529,
    "timeout_error": 408,
    "invalid_request_error": 400,
    "context_length_exceeded": 400,
}


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date), None if absent/invalid."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        pass
    try:
        from datetime import datetime
        from email.utils import parsedate_to_datetime

        when = parsedate_to_datetime(ra)
        return max(0.0, (when - datetime.now(when.tzinfo)).total_seconds())
    except (TypeError, ValueError):
        return None


def message_from_body(body: bytes) -> tuple[str, str | None]:
    """The human message and error type/code from a JSON error body (Anthropic, OpenAI, Gemini, Ollama)."""
    text = body.decode("utf-8", "replace").strip()
    try:
        obj = json.loads(text)
    except ValueError:
        return text[:500], None
    err = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(err, str):
        return err[:500], None
    if not isinstance(err, dict):
        return text[:500], None
    msg = err.get("message") or err.get("detail") or text
    etype = err.get("code") if isinstance(err.get("code"), str) else None
    etype = etype or err.get("type") or err.get("status")
    return str(msg)[:500], str(etype) if etype else None


@record
class ApiIdentity:
    """Who we were talking to, for messages and hints: `label` (Anthropic), `key_env` (ANTHROPIC_API_KEY)."""

    label: str
    key_env: str | None = None
    secrets: tuple[str | None, ...] = field(default=(), repr=False)


def error_from_status(
    status: int,
    message: str,
    who: ApiIdentity,
    *,
    headers: Mapping[str, str] | None = None,
    error_type: str | None = None,
) -> ProviderError:
    """The error for an HTTP error response (or an in-stream error, with a status derived from its type)."""
    msg = redact(message, who.secrets).strip() or "no details"
    where = f"{who.label} returned HTTP {status}" if status else f"{who.label} reported an error"
    text = f"{where}: {msg}"
    ra = retry_after_s(headers) if headers else None
    kw: dict[str, Any] = {"status": status or None, "retry_after": ra}
    if status in (401, 403):
        hint = f"check {who.key_env}" if who.key_env else "check the API key"
        return AuthError(text, hint=hint, **kw)
    if status == 429:
        return RateLimitError(text, hint="wait a moment, or lower the request rate", **kw)
    if status in (503, 529):
        return OverloadedError(text, hint=f"{who.label} is overloaded; try again shortly", **kw)
    if status == 408:
        return ProviderTimeoutError(text, **kw)
    if status == 409 or status >= 500:
        return UnavailableError(text, **kw)
    if _CONTEXT_WORDING.search(msg) or error_type == "context_length_exceeded":
        return ContextOverflowError(text, hint="the conversation is too long for this model; compact it "
                                               "or start a new session", **kw)
    if status == 404:
        return BadRequestError(text, hint="check the model name and the base URL", **kw)
    return BadRequestError(text, **kw)


def error_from_event(error_type: str | None, message: str, who: ApiIdentity) -> ProviderError:
    """An error the provider sent inside a stream, typed like `overloaded_error`."""
    status = _TYPE_STATUS.get(error_type or "", 500)
    return error_from_status(status, message, who, error_type=error_type)
