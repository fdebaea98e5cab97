"""How a tool call looks on screen: a compact header line, then a short preview, a diff or an output tail."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from agentcli.visible import inert, visible

_KEY_ARGS = ("file_path", "path", "command", "pattern", "url", "query", "prompt", "description", "name")
_DIFF_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
PREVIEW_LINES = 3
TAIL_LINES = 5
DIFF_LINES = 40


def key_argument(name: str, args: dict[str, Any]) -> str:
    """The one argument that says what a call does: the path, the command, the pattern."""
    for key in _KEY_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return one_line(visible(value))
    for value in args.values():
        if isinstance(value, str) and value:
            return one_line(visible(value))
    return ""


def one_line(text: str) -> str:
    text = text.strip()
    first, _, rest = text.partition("\n")
    return first + (" …" if rest else "")


def format_duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms}ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    return f"{ms // 60_000}m{(ms % 60_000) // 1000:02d}s"


def header(name: str, args: dict[str, Any], status: str, duration_ms: int | None, width: int) -> Text:
    """`✓ Bash(ls -la) 12ms`, shortened to fit `width` columns."""
    mark, style = {"ok": ("✓", "green"), "error": ("✗", "red"), "denied": ("⊘", "yellow")}.get(status, ("•", "cyan"))
    tail = f" {format_duration(duration_ms)}" if duration_ms is not None else ""
    key = key_argument(name, args)
    room = max(8, width - len(name) - len(tail) - 6)
    if len(key) > room:
        key = key[: room - 1] + "…"
    line = Text()
    line.append(f"{mark} ", style=style)
    line.append(visible(name), style="bold")
    if key:
        line.append(f"({key})")
    if tail:
        line.append(tail, style="dim")
    return line


def preview(name: str, content: str, display: str | None, is_error: bool, width: int) -> list[Text]:
    """The lines shown under a tool's header: an error, a coloured diff, an output tail or a short summary."""
    if display and name in _DIFF_TOOLS and not is_error:
        return diff_lines(display, width)
    body = inert(display if display else content)
    lines = body.rstrip("\n").splitlines()
    if not lines:
        return _indent([Text("(no output)", style="dim")])
    if is_error:
        shown = lines[:PREVIEW_LINES]
        style = "red"
    elif name == "Bash":
        shown = lines[-TAIL_LINES:]
        style = "dim"
    else:
        shown = lines[:PREVIEW_LINES]
        style = "dim"
    out = [Text(_clip(line, width - 4), style=style) for line in shown]
    hidden = len(lines) - len(shown)
    if hidden > 0:
        plural = "s" if hidden != 1 else ""
        if name == "Bash" and not is_error:
            out.insert(0, Text(f"… {hidden} line{plural} above", style="dim"))
        else:
            out.append(Text(f"… {hidden} more line{plural}", style="dim"))
    return _indent(out)


def diff_lines(diff: str, width: int) -> list[Text]:
    """A unified diff, coloured: additions green, removals red, hunk headers cyan."""
    lines = visible(diff).rstrip("\n").splitlines()
    out: list[Text] = []
    for line in lines[:DIFF_LINES]:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = "dim"
        out.append(Text(_clip(line, width - 4), style=style))
    if len(lines) > DIFF_LINES:
        out.append(Text(f"… {len(lines) - DIFF_LINES} more diff lines", style="dim"))
    return _indent(out)


def _indent(lines: list[Text]) -> list[Text]:
    """`  ⎿ ` before the first line, four spaces before the rest, as Claude Code does."""
    out: list[Text] = []
    for i, text in enumerate(lines):
        line = Text("  ⎿ " if i == 0 else "    ", style="dim")
        line.append_text(text)
        out.append(line)
    return out


def _clip(line: str, room: int) -> str:
    line = line.expandtabs(4)
    return line if len(line) <= room else line[: max(1, room - 1)] + "…"


def web_sources(provider: str, queries: tuple[str, ...], sources: tuple[tuple[str, str], ...]) -> str:
    """A provider's own web search, as one block: which search ran, what it asked, the sources (numbered)."""
    asked = "; ".join(f"“{q}”" for q in queries)
    lines = [f"  ⌕ web search ({provider}'s own){': ' + asked if asked else ''}"]
    lines += [f"    [{i}] {title or url} — {url}" for i, (title, url) in enumerate(sources[:10], 1)]
    return "\n".join(lines)
