"""Text helpers shared by the tools: line splitting, `cat -n` numbering, head-and-tail capping."""

from __future__ import annotations

from collections.abc import Callable

from agentcli.tools.specs import MAX_LINE_CHARS  # Read's description states it


def split_lines(text: str) -> list[str]:
    """Lines as editors count them: split on `\\n` only, `\\r` of CRLF dropped, no empty last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return lines


_PREFIXES: list[str] = []


_MAX_CACHED_PREFIX = 100_000


def _prefixes(start: int, end: int) -> list[str]:
    """`cat -n` prefixes for lines start..end-1; the common ones are formatted once per process (Read's hot
    path spends most of its time here otherwise)."""
    if end > _MAX_CACHED_PREFIX:
        return [f"{n:>6}\t" for n in range(start, end)]
    if end > len(_PREFIXES):
        grow_to = min(max(end, 2 * len(_PREFIXES)), _MAX_CACHED_PREFIX)
        _PREFIXES.extend(f"{n:>6}\t" for n in range(len(_PREFIXES), grow_to))
    return _PREFIXES[start:end]


def number_lines(lines: list[str], start: int, max_line_chars: int = MAX_LINE_CHARS) -> str:
    """`cat -n` style: a right-aligned 1-based line number, a tab, the line (long lines cut)."""
    if lines and max(map(len, lines)) > max_line_chars:
        lines = [
            f"{ln[:max_line_chars]}… [line truncated, {len(ln) - max_line_chars} more chars]"
            if len(ln) > max_line_chars
            else ln
            for ln in lines
        ]
    return "\n".join(map(str.__add__, _prefixes(start, start + len(lines)), lines))


def omitted_marker(lines: int, chars: int) -> str:
    return f"\n… {lines} lines omitted ({chars} chars) …\n"


def _head(text: str, n: int) -> str:
    """The first `n` chars of `text`, ending at a line break when one is in the second half."""
    head = text[:n]
    cut = head.rfind("\n")
    return head[: cut + 1] if cut > n // 2 else head


def _tail(text: str, n: int) -> str:
    """The last `n` chars of `text`, starting after a line break when one is in the first half."""
    tail = text[-n:] if n else ""
    cut = tail.find("\n")
    return tail[cut + 1 :] if 0 <= cut < n // 2 else tail


def cap_head_tail(text: str, limit: int) -> str:
    """`text` if it fits in `limit` chars, else its head and tail with a marker saying what was cut."""
    if len(text) <= limit:
        return text
    half = max(limit // 2, 1)
    head, tail = _head(text, half), _tail(text, half)
    middle = text[len(head) : len(text) - len(tail)]
    return head.rstrip("\n") + omitted_marker(middle.count("\n"), len(middle)) + tail


class HeadTail:
    """Collects a byte stream of any size in bounded memory: the first and the last `keep` bytes.

    `text(limit, redact)` decodes, redacts each part before cutting (so a secret is never cut in half
    into something the redactor no longer recognises), and caps the result like `cap_head_tail`.
    """

    def __init__(self, keep: int) -> None:
        self.keep = max(keep, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.dropped_lines = 0
        self.dropped_bytes = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.keep
        if excess > 0:
            self.dropped_lines += self.tail.count(b"\n", 0, excess)
            self.dropped_bytes += excess
            del self.tail[:excess]

    def text(self, limit: int, redact: Callable[[str], str] | None = None) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if redact is not None:
            head, tail = redact(head), redact(tail)
        if not self.dropped_bytes:
            return cap_head_tail(head + tail, limit)
        half = max(limit // 2, 1)
        head_part, tail_part = _head(head, half), _tail(tail, half)
        hidden_head, hidden_tail = head[len(head_part) :], tail[: len(tail) - len(tail_part)]
        lines = hidden_head.count("\n") + self.dropped_lines + hidden_tail.count("\n")
        chars = len(hidden_head) + self.dropped_bytes + len(hidden_tail)
        return head_part.rstrip("\n") + omitted_marker(lines, chars) + tail_part
