"""Grep without ripgrep: Python `re` over a .gitignore-aware file walk, printing what rg would print.

Used only when no `rg` binary is found. Output formats follow rg: `path:line:text` for matches,
`path-line-text` for context lines, `--` between separate groups, `path:count` in count mode; a single-file
search omits the path in content mode.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from agentcli.settings.projectfiles import read_regular
from agentcli.tools.globmatch import compile_glob
from agentcli.tools.grepoptions import GrepOptions
from agentcli.tools.ignore import walk_files

FILE_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "python": ("*.py", "*.pyi"),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "typescript": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java",),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "rb": ("*.rb",),
    "ruby": ("*.rb",),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "md": ("*.md", "*.markdown"),
    "markdown": ("*.md", "*.markdown"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css", "*.scss", "*.sass", "*.less"),
    "txt": ("*.txt",),
}


def _name_filter(opts: GrepOptions) -> list[list[re.Pattern[str]]]:
    """Groups of regexes over relative paths: a file is searched when it matches one regex of every group.

    A glob without `/` matches at any directory level; `!glob` excludes (as a group of one negated check).
    """
    groups: list[list[re.Pattern[str]]] = []
    if opts.file_type:
        if opts.file_type not in FILE_TYPES:
            raise ValueError(f"unrecognized file type: {opts.file_type} (known: {', '.join(FILE_TYPES)})")
        groups.append([compile_glob("**/{" + ",".join(FILE_TYPES[opts.file_type]) + "}")])
    include = [g for g in opts.globs if not g.startswith("!")]
    if include:
        groups.append([compile_glob(g if "/" in g else "**/" + g) for g in include])
    return groups


def _excluded(opts: GrepOptions) -> list[re.Pattern[str]]:
    return [compile_glob(g[1:] if "/" in g else "**/" + g[1:]) for g in opts.globs if g.startswith("!")]


def _files(target: Path, opts: GrepOptions, denied: Callable[[str], bool] | None = None) -> Iterator[str]:
    """Every file to search (none that `denied` says may not be read)."""
    if target.is_file():
        if denied is None or not denied(str(target)):
            yield str(target)
        return
    groups, exclude = _name_filter(opts), _excluded(opts)
    for rel in walk_files(str(target)):
        if all(any(r.match(rel) for r in group) for group in groups) and not any(r.match(rel) for r in exclude):
            path = os.path.join(target, rel)
            if denied is None or not denied(path):
                yield path


def _read_text(path: str) -> str | None:
    """The file's text; None for a binary file, or a symlink: the walk lists links as files, and one may
    point anywhere (rg does not follow them either), or anything but a regular file (a FIFO would block).
    A searched target was resolved already."""
    data = read_regular(path, follow=False)
    if data is None or b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _matching_lines(regex: re.Pattern[str], text: str, multiline: bool) -> list[int]:
    """0-based indexes of lines holding (the start of, or in multiline mode any part of) a match."""
    if multiline:
        hit: set[int] = set()
        for m in regex.finditer(text):
            first = text.count("\n", 0, m.start())
            hit.update(range(first, first + text.count("\n", m.start(), max(m.end() - 1, m.start())) + 1))
        return sorted(hit)
    return [i for i, line in enumerate(text.split("\n")) if regex.search(line)]


def _content_lines(name: str | None, lines: list[str], hits: list[int], opts: GrepOptions) -> list[str]:
    out: list[str] = []
    shown: set[int] = set()
    hit_set = set(hits)
    last = -2
    for h in hits:
        for i in range(max(h - opts.before, 0), min(h + opts.after + 1, len(lines))):
            if i in shown:
                continue
            if (opts.before or opts.after) and last >= 0 and i > last + 1:
                out.append("--")
            sep = ":" if i in hit_set else "-"
            prefix = f"{name}{sep}" if name is not None else ""
            number = f"{i + 1}{sep}" if opts.line_numbers else ""
            out.append(f"{prefix}{number}{lines[i]}")
            shown.add(i)
            last = i
    return out


def search(
    target: Path, opts: GrepOptions, max_lines: int, denied: Callable[[str], bool] | None = None
) -> tuple[list[str], bool]:
    """Run the search; (output lines, whether it stopped at `max_lines`). Raises ValueError on a bad regex.
    Files `denied` says may not be read (`.env` …) are not opened."""
    flags = re.IGNORECASE if opts.ignore_case else 0
    flags |= re.MULTILINE | re.DOTALL if opts.multiline else 0
    try:
        regex = re.compile(opts.pattern, flags)
    except re.error as e:
        raise ValueError(f"invalid regular expression {opts.pattern!r}: {e}") from None
    single = target.is_file()
    out: list[str] = []
    for path in _files(target, opts, denied):
        text = _read_text(path)
        if text is None:
            continue
        hits = _matching_lines(regex, text, opts.multiline)
        if not hits:
            continue
        if opts.mode == "files_with_matches":
            out.append(path)
        elif opts.mode == "count":
            out.append(f"{path}:{len(hits)}")
        else:
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if out and (opts.before or opts.after):
                out.append("--")
            out += _content_lines(None if single else path, lines, hits, opts)
        if len(out) > max_lines:
            return out[:max_lines], True
    return out, False
