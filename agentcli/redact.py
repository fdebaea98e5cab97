"""The one redactor: what keeps secrets out of session files, error messages, telemetry, hook and MCP output.

Two layers: the exact secrets we were given (API keys from env/config, MCP headers) and a pattern net for
secret shapes we were not told about:

- provider keys: `sk-…`, `sk-ant-…`, `AIza…`, `ghp_…`, `github_pat_…`, `xox…-`, `AKIA…`, `hf_…`, `gsk_…`;
- bearer tokens: `Bearer <token>`;
- header values: `Authorization:`, `Proxy-Authorization:`, `x-api-key:`, `api-key:`, `x-goog-api-key:`,
  `x-auth-token:` (as an HTTP header line, a curl `-H`, or a JSON/dict entry with a quoted value);
- URLs with credentials: `scheme://user:password@host` keeps the user, `scheme://<token>@host` loses it;
- secret query parameters: `?key=…`, `&api_key=…`, `access_token`, `token`, `sig`, `password`.

Shapes that would also match ordinary code (`authorization: AuthHeader`, `f"Bearer {key}"`) are told apart by
requiring a credential-like value: at least 8 characters, a digit among them, and no call or subscript after it.
Tool output the model reads uses the given secrets only (`patterns=False`): a project's test fixtures are
legitimate output there, and the session file's redactor still catches the shapes on the way to disk.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"

# The patterns are compiled at the first text that passes their gate (below), not at import: compiling them
# all costs ~2–3 ms of every run's start-up, and most runs' texts never pass most gates.
# Lookbehinds keep "task-…" from matching "sk-…"; the `\n`/`\t` alternatives catch a key at a line start.
_EDGE = r"(?:(?<![A-Za-z0-9_])|(?<=\\n)|(?<=\\t))"
_KEYS = (
    _EDGE
    + r"(?:"
    r"sk-ant-[A-Za-z0-9_\-]{20,}"
    r"|sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{6,}"
    r"|AIza[0-9A-Za-z_\-]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}"
    r"|github_pat_[A-Za-z0-9_]{40,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|gsk_[A-Za-z0-9]{10,}"
    r")"
)

# A credential-like value: ≥ 8 token characters with a digit among them, not followed by more of an expression.
_TOKEN = r"(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{8,}=*(?![A-Za-z0-9._~+/\-=(\[{])"
_HEADER_NAMES = r"(?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key|x-auth-token"
_SCHEMES = r"(?:(?:bearer|basic|token|bot|digest)\s+)?"
_HEADERS = (
    r"(?i)(?<![A-Za-z0-9_\-])"
    rf"(?P<keep>(?:(?P<q>[\"'])(?:{_HEADER_NAMES})(?P=q)\s*:\s*[\"']|(?:{_HEADER_NAMES}):[ \t]*){_SCHEMES})"
    + _TOKEN
)
_BEARER = r"(?i)(?<![A-Za-z0-9_\-])(?P<keep>bearer\s+)" + _TOKEN
# The password runs to the last `@` before the host (a raw `@` inside it is what curl and git read so too); its
# length is bounded so that text with many `://` cannot make the search quadratic.
_URL_USERINFO = (
    r"(?<=://)(?:(?P<keep>[^/\s:@\"'<>]{0,256}:)[^/\s\"'<>]{1,256}|(?=[^/\s:@]*\d)[A-Za-z0-9._~%\-]{8,})"
    r"(?=@[^/\s@\"'<>]*(?:[/\s\"'<>]|$))"
)
_QUERY = r"(?i)(?P<keep>[?&](?:api[_-]?key|key|access[_-]?token|token|sig|signature|password)=)[^&\s\"'#{}<>]{6,}"
# Each shape with a gate (substrings of the text, or of its lower-case form, one of which it must contain) and a
# cheap pattern for where it can occur: the full pattern, slow to try at every position of a long text, runs only
# over the lines the cheap one found (no shape spans a line).
_KEY_PREFIXES = ("sk-", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA", "hf_", "gsk_")
_SHAPES: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    (_KEYS, r"sk-|AIza|gh[pousr]_|github_pat_|xox|AKIA|hf_|gsk_", _KEY_PREFIXES, False),
    (_HEADERS, r"(?i)authorization|api-key|auth-token", ("authorization", "api-key", "auth-token"), True),
    (_BEARER, r"(?i)bearer", ("bearer",), True),
    (_URL_USERINFO, r"://[^/\s]*@", ("://",), False),
    (_QUERY, r"[?&][A-Za-z_\-]+=", ("?", "&"), False),
)


@functools.cache
def _rx(source: str) -> re.Pattern[str]:
    return re.compile(source)


_MIN_SECRET_LEN = 6


def _keep(m: re.Match[str]) -> str:
    keep: str | None = m.groupdict().get("keep")
    return (keep or "") + REDACTED


def _sub_lines(pattern: re.Pattern[str], hint: re.Pattern[str], s: str) -> str:
    """`pattern.sub(_keep, s)`, run only over the lines where `hint` matches."""
    out: list[str] = []
    done = 0
    for m in hint.finditer(s):
        if m.start() < done:
            continue
        start = s.rfind("\n", 0, m.start()) + 1
        end = s.find("\n", m.end())
        end = len(s) if end < 0 else end
        out += [s[done:start], pattern.sub(_keep, s[start:end])]
        done = end
    if not out:
        return s
    out.append(s[done:])
    return "".join(out)


class Redactor:
    """Replaces configured secrets and (unless `patterns=False`) secret-shaped strings with `[REDACTED]`. Secrets
    shorter than six characters are ignored: redacting them would mangle ordinary text."""

    def __init__(self, secrets: Iterable[str | None] = (), *, patterns: bool = True) -> None:
        self.given = tuple(secrets) if not isinstance(secrets, tuple) else secrets
        self.patterns = patterns
        found = {s for s in self.given if s and len(s) >= _MIN_SECRET_LEN}
        # The JSON-escaped form too, for secrets read back out of JSON text by a tool, and the base64 forms
        # (`Authorization: Basic …`, a token in a config file or a Kubernetes secret, `echo $KEY | base64`).
        found |= {json.dumps(s, ensure_ascii=False)[1:-1] for s in list(found)}
        self.secrets = tuple(sorted(found, key=len, reverse=True))
        # Redacted with the whole base64 run around them: its edges hold the secret's first and last bytes.
        self.encoded = tuple(sorted({b for s in found for b in _base64_forms(s)}, key=len, reverse=True))

    def text(self, s: str, *, patterns: bool | None = None) -> str:
        """`s` redacted; `patterns` overrides the instance's choice of the pattern net for this call."""
        for secret in self.secrets:
            if secret in s:
                s = s.replace(secret, REDACTED)
        for encoded in self.encoded:
            if encoded in s:
                s = re.sub(f"[A-Za-z0-9+/_-]*{re.escape(encoded)}[A-Za-z0-9+/_-]*=*", REDACTED, s)
        if not (self.patterns if patterns is None else patterns):
            return s
        low = s.lower()
        for pattern, hint, gate, lower in _SHAPES:
            if any(g in (low if lower else s) for g in gate):
                s = _sub_lines(_rx(pattern), _rx(hint), s)
        return s

    def obj(self, value: Any) -> Any:
        """A JSON-ready copy of `value` with every string redacted (keys included)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            # Image bytes are not text: a pattern match inside base64 would only corrupt the image.
            raw = value.get("type") == "base64"
            return {self.text(str(k)): v if raw and k == "data" else self.obj(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.obj(v) for v in value]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self.obj(_jsonable(value))


def _base64_forms(secret: str) -> set[str]:
    """What `secret` becomes inside any base64 text, standard and URL-safe alphabets: base64 encodes 3 bytes at a
    time, so its bytes land in one of three alignments. For each, the characters that depend on the secret alone
    (the first group when a byte of what comes before shares it, and the last partial group, are left out), when
    there are at least 12 of them: shorter runs would match ordinary base64 by chance."""
    import base64

    raw = secret.encode("utf-8")
    if len(raw) < 10:
        return set()
    out: set[str] = set()
    for pad in range(3):
        enc = base64.b64encode(bytes(pad) + raw).decode("ascii")
        core = enc[4 if pad else 0: 4 * ((pad + len(raw)) // 3)]
        if len(core) >= 12:
            out |= {core, core.replace("+", "-").replace("/", "_")}
    return out


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` without the given secrets and without anything secret-shaped (the full pattern net)."""
    return Redactor(secrets).text(text)


def public_url(url: str) -> str:
    """`url` fit to show or store: scheme, host, port and path, without credentials, query or fragment (any of
    them may carry a secret); `(invalid URL)` when it cannot be parsed."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "(invalid URL)"
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _jsonable(value: Any) -> Any:
    """Dataclasses and objects with `to_dict()` become dicts; anything else its `str()`."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {name: getattr(value, name) for name in fields}
    return str(value)
