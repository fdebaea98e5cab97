"""Which hooks an event runs: Claude Code's matcher rules.

For tool events the target is the tool name; for SessionStart its source (startup, resume, clear, compact), for
PreCompact its trigger (manual, auto), for Notification its type, for SessionEnd its reason. An empty matcher or
`*` matches everything; a plain name or `|`-separated names match exactly (`Edit|Write`); anything else is a
regular expression that must match the whole target (`mcp__github__.*`, `Notebook.*`). A matcher that is not a
valid expression matches nothing (and is reported when the settings load).
"""

from __future__ import annotations

import re
from functools import lru_cache

_NAMES = re.compile(r"^[A-Za-z0-9_\-|]+$")


@lru_cache(maxsize=256)
def compile_matcher(matcher: str) -> re.Pattern[str] | frozenset[str] | None:
    """A set of exact names, a compiled expression, or None for "everything". Raises re.error when invalid."""
    text = matcher.strip()
    if text in ("", "*"):
        return None
    if _NAMES.match(text):
        return frozenset(n for n in text.split("|") if n)
    return re.compile(text)


def matches(matcher: str, target: str | None) -> bool:
    try:
        compiled = compile_matcher(matcher)
    except re.error:
        return False
    if compiled is None:
        return True
    if target is None:
        return False
    if isinstance(compiled, frozenset):
        return target in compiled
    return compiled.fullmatch(target) is not None
