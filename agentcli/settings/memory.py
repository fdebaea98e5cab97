"""Memory files: the user's standing instructions, loaded into the system prompt.

In `$AGENTCLI_HOME` and in every directory from the project root down to the cwd, `AGENTS.md` is read; where
there is none, `CLAUDE.md` and then `GEMINI.md` stand in, so a repo set up for another agent works as is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentcli import paths

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
MAX_FILE_CHARS = 40_000


@dataclass(frozen=True, slots=True)
class Memory:
    """The joined text for the system prompt and the files it came from, in load order."""

    text: str = ""
    files: tuple[Path, ...] = field(default_factory=tuple)


def memory_dirs(cwd: Path, project_root: Path) -> list[Path]:
    """Where to look, most general first: the user's home, then the project root down to the cwd."""
    cwd, root = cwd.resolve(), project_root.resolve()
    chain = [d for d in reversed(cwd.parents) if d == root or root in d.parents] + [cwd]
    out = [paths.home()]
    for d in chain:
        if d not in out:
            out.append(d)
    return out


def find_memory_file(directory: Path) -> Path | None:
    for name in MEMORY_NAMES:
        f = directory / name
        if f.is_file():
            return f
    return None


def load_memory(cwd: Path, project_root: Path) -> Memory:
    """Read every memory file that applies to `cwd`. Unreadable files are skipped, long ones cut."""
    files: list[Path] = []
    parts: list[str] = []
    for d in memory_dirs(cwd, project_root):
        f = find_memory_file(d)
        if f is None:
            continue
        try:
            text = f.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if not text:
            continue
        if len(text) > MAX_FILE_CHARS:
            text = text[:MAX_FILE_CHARS] + f"\n[… {f.name} cut at {MAX_FILE_CHARS} characters]"
        files.append(f)
        parts.append(f"Contents of {f}:\n\n{text}")
    if not parts:
        return Memory()
    head = "Instructions from the user's memory files (later, more specific files take precedence):"
    return Memory("\n\n".join([head, *parts]), tuple(files))
