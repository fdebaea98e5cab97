"""Split streamed markdown into complete blocks, so each block is rendered once and only the open one redrawn.

A block ends at a blank line (outside a code fence and outside a list, which may hold blank lines), at the
closing fence of a code block, or right after a heading. Cost is linear: each line is looked at once.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")


class MarkdownStream:
    """Feed text pieces with `feed`; it returns the blocks that became complete. `close` returns the rest."""

    def __init__(self) -> None:
        self._partial: list[str] = []
        self._block: list[str] = []
        self._fence: str | None = None
        self._blank_pending = False

    @property
    def in_fence(self) -> bool:
        return self._fence is not None

    def open_lines(self) -> list[str]:
        """The open block's complete lines (a list shared with the stream: copy before keeping it)."""
        return self._block

    def partial_line(self) -> str:
        return "".join(self._partial)

    def feed(self, text: str) -> list[str]:
        done: list[str] = []
        while text:
            nl = text.find("\n")
            if nl < 0:
                self._partial.append(text)
                break
            self._partial.append(text[:nl])
            line = "".join(self._partial)
            self._partial.clear()
            text = text[nl + 1 :]
            self._line(line, done)
        return done

    def close(self) -> str | None:
        """End of message: the open block (with any unfinished line), or None when nothing is left."""
        tail = "".join(self._partial)
        self._partial.clear()
        if tail:
            self._block.append(tail)
        text = "\n".join(self._block).strip("\n")
        self._block = []
        self._fence = None
        self._blank_pending = False
        return text or None

    def _emit(self, done: list[str]) -> None:
        text = "\n".join(self._block).strip("\n")
        if text:
            done.append(text)
        self._block = []
        self._blank_pending = False

    def _line(self, line: str, done: list[str]) -> None:
        if self._fence is not None:
            self._block.append(line)
            bare = line.strip()
            if bare.startswith(self._fence) and not bare.strip(self._fence[0]):
                self._fence = None
                self._emit(done)
            return
        if not line.strip():
            if self._block and self._is_list():
                self._blank_pending = True
            else:
                self._emit(done)
            return
        if self._blank_pending:
            # A list continues over a blank line only with another item or an indented line.
            if _LIST_ITEM.match(line) or line.startswith(("  ", "\t")):
                self._block.append("")
                self._blank_pending = False
            else:
                self._emit(done)
        fence = _FENCE.match(line)
        if fence:
            if self._block and not self._is_list():
                self._emit(done)
            self._fence = fence.group(1)
            self._block.append(line)
            return
        if _HEADING.match(line):
            self._emit(done)
            self._block.append(line)
            self._emit(done)
            return
        self._block.append(line)

    def _is_list(self) -> bool:
        return bool(self._block) and _LIST_ITEM.match(self._block[0]) is not None
