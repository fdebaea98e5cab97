"""The secrets of the environment agentcli was started with, beyond the provider keys it knows by name: the
values of variables whose names say they are secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD` …, the
same names the sandbox keeps from child processes) and the header values of the OTLP exporter's variables
(`OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer …"`). They are redacted wherever text leaves the process: a
command's output the model reads (a config file holding the same token), the session file, telemetry.

A value is taken only when it can be a credential: 8 characters or more, no whitespace, not a path, not a
boolean or a number. Standard library only: it runs on every start.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentcli.sandbox.env import DEFAULT_EXCLUDE, any_of

# Case-insensitive globs over variable names: the sandbox's exclusions (one list) and two bare suffixes.
SECRET_NAMES = (*DEFAULT_EXCLUDE, "*_KEY", "*_PAT")
_OTLP_HEADERS = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                 "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS")
_NOT_SECRET = frozenset({"true", "false", "yes", "no", "none", "null", "undefined", "disabled", "enabled"})


def secret_values(environ: Mapping[str, str]) -> set[str]:
    """The values of `environ` that are secrets by their variable's name."""
    found: set[str] = set()
    secret_name = any_of(SECRET_NAMES)
    for name, value in environ.items():
        upper = name.upper()
        if upper in _OTLP_HEADERS:
            found |= {v for v in _header_values(value) if _credential(v)}
        elif secret_name.match(upper) and _credential(value):
            found.add(value)
    return found


def _header_values(raw: str) -> list[str]:
    """`k=v,k2=v2` (values percent-encoded, as the OTLP specification writes them): the values, decoded, and
    each scheme's token (`Bearer abc` → `abc` too)."""
    from urllib.parse import unquote

    out: list[str] = []
    for pair in raw.split(","):
        _, sep, value = pair.partition("=")
        if sep:
            value = unquote(value).strip()
            out += [value, value.split()[-1]] if value else []
    return out


def _credential(value: str) -> bool:
    v = value.strip()
    return (len(v) >= 8 and not any(c.isspace() for c in v) and not v.startswith(("/", "~", "./"))
            and v.lower() not in _NOT_SECRET and not v.replace(".", "", 1).isdigit())
