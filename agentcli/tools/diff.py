"""Unified diffs of file changes, for the person watching (the `display` of Write and Edit)."""

from __future__ import annotations

from typing import NamedTuple

from agentcli.tools.text import cap_head_tail

MAX_DIFF_CHARS = 20_000


class Diff(NamedTuple):
    text: str
    added: int
    removed: int


def unified_diff(old: str, new: str, name: str, context: int = 3) -> Diff:
    """A `diff -u` of two texts, labelled `a/name` and `b/name` (capped in size), with line counts."""
    import difflib  # loaded on the first edit rather than at start-up

    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=name if name.startswith("/") else f"a/{name}",  # an absolute path stays itself (no "a//")
            tofile=name if name.startswith("/") else f"b/{name}",
            n=context,
        )
    )
    added = sum(1 for ln in lines[2:] if ln.startswith("+"))
    removed = sum(1 for ln in lines[2:] if ln.startswith("-"))
    out = "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
    return Diff(cap_head_tail(out, MAX_DIFF_CHARS), added, removed)
