"""Text helpers shared by the tools: line splitting, `cat -n` numbering, head-and-tail capping."""

from __future__ import annotations

from collections.abc import Callable

MAX_LINE_CHARS = 2000


def split_lines(text: str) -> list[str]:
    """Lines as editors count them: split on `\\n` only, `\\r` of CRLF dropped, no empty last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return lines


def number_lines(lines: list[str], start: int, max_line_chars: int = MAX_LINE_CHARS) -> str:
    """`cat -n` style: a right-aligned 1-based line number, a tab, the line (long lines cut)."""
    out = []
    for n, line in enumerate(lines, start):
        if len(line) > max_line_chars:
            line = f"{line[:max_line_chars]}… [line truncated, {len(line) - max_line_chars} more chars]"
        out.append(f"{n:>6}\t{line}")
    return "\n".join(out)


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
