"""Glob patterns as regular expressions: `*`, `?`, `[…]`, `**` across directories and `{a,b}` alternatives.

Paths are matched relative to a base directory with `/` separators. `*` does not cross `/`; `**` as a whole
segment matches any number of directories, including none. Dotfiles are not special.
"""

from __future__ import annotations

import re
from functools import lru_cache

_MAGIC = re.compile(r"[*?\[{]")


def has_magic(s: str) -> bool:
    return _MAGIC.search(s) is not None


def expand_braces(pattern: str) -> list[str]:
    """`a{b,c{d,e}}f` → `abf`, `acdf`, `acef`; unbalanced braces are kept literally."""
    depth, start = 0, -1
    for i, ch in enumerate(pattern):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _split_top(pattern[start + 1 : i])
                if len(options) < 2:
                    continue
                head, tail = pattern[:start], pattern[i + 1 :]
                return [x for opt in options for x in expand_braces(head + opt + tail)]
    return [pattern]


def _split_top(s: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def translate(pattern: str) -> str:
    """The regex body for one brace-free glob pattern."""
    out: list[str] = []
    segments = pattern.split("/")
    last = len(segments) - 1
    for n, seg in enumerate(segments):
        if seg == "**":
            # `a/**/b` matches a/b; a trailing `**` matches everything below.
            out.append(".*" if n == last else "(?:[^/]*/)*")
            continue
        out.append(_translate_segment(seg))
        if n != last:
            out.append("/")
    return "".join(out)


def _translate_segment(seg: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(seg):
        ch = seg[i]
        if ch == "*":
            while i + 1 < len(seg) and seg[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = seg.find("]", i + 2 if seg[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = seg[i + 1 : end]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                body = body.replace("\\", "\\\\")
                out.append(f"[^/{body}]" if neg else f"[{body}]")
                i = end
        elif ch == "\\" and i + 1 < len(seg):
            i += 1
            out.append(re.escape(seg[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches relative paths the glob `pattern` selects."""
    alternatives = [translate(p) for p in expand_braces(pattern)]
    return re.compile("(?:" + "|".join(alternatives) + r")\Z", re.DOTALL)
