"""Secret redaction for tool output and everything written to a session file.

Two layers: the exact secrets we were given (API keys from env/config) and a pattern net for common key
shapes, so a key printed by `env` in a Bash result never reaches the model or the disk.
"""

from __future__ import annotations

import json
import re
from typing import Any

REDACTED = "[REDACTED]"

# Lookbehinds keep "task-…" from matching "sk-…"; the `\n`/`\t` alternatives catch a key at a line start.
_EDGE = r"(?:(?<![A-Za-z0-9_])|(?<=\\n)|(?<=\\t))"
_PATTERN = re.compile(
    _EDGE
    + r"(?:"
    r"sk-ant-[A-Za-z0-9_\-]{20,}"
    r"|sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}"
    r"|github_pat_[A-Za-z0-9_]{40,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|gsk_[A-Za-z0-9]{40,}"
    r")"
)
_MIN_SECRET_LEN = 6
# Cheap substring checks first: the pattern itself is slow to scan over long tool output.
_PREFIXES = ("sk-", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA", "hf_", "gsk_")


class Redactor:
    """Replaces configured secrets and (unless `patterns=False`) key-shaped strings with `[REDACTED]`. Secrets
    shorter than six characters are ignored: redacting them would mangle ordinary text."""

    def __init__(self, secrets: tuple[str, ...] = (), *, patterns: bool = True) -> None:
        self.given = secrets
        self.patterns = patterns
        found = {s for s in secrets if s and len(s) >= _MIN_SECRET_LEN}
        # The JSON-escaped form too, for secrets read back out of JSON text by a tool.
        found |= {json.dumps(s, ensure_ascii=False)[1:-1] for s in list(found)}
        self.secrets = tuple(sorted(found, key=len, reverse=True))

    def text(self, s: str) -> str:
        for secret in self.secrets:
            if secret in s:
                s = s.replace(secret, REDACTED)
        if self.patterns and any(p in s for p in _PREFIXES):
            s = _PATTERN.sub(REDACTED, s)
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


def _jsonable(value: Any) -> Any:
    """Dataclasses and objects with `to_dict()` become dicts; anything else its `str()`."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {name: getattr(value, name) for name in fields}
    return str(value)
