"""Memory files: the user's standing instructions, loaded into the system prompt.

In `$AGENTCLI_HOME` and in every directory from the project root down to the cwd, `AGENTS.md` is read; where
there is none, `CLAUDE.md` and then `GEMINI.md` stand in, so a repo set up for another agent works as is.
Memory files below the cwd are picked up when the agent works there (`NestedMemoryFiles`).

`@path` on its own or after a space imports another file in place (relative to the importing file, or `~/…`),
up to 5 levels deep, each file once. What an import may read is narrow, because a repository's memory file is
written by whoever wrote the repository: a file in the project imports only files inside the project or Markdown
files of the user's own `$AGENTCLI_HOME` (never its config, trust records or sessions); the user's own memory file
also imports from their home directory. A project's memory file that is a link to something outside the project
is not read at all. Secrets (`.env*`, keys, `~/.ssh`, `~/.aws`, `.git/` …), non-regular files and files over
40,000 characters never are.
"""

from __future__ import annotations

import os
import re
from dataclasses import field
from fnmatch import fnmatch
from pathlib import Path

from agentcli import paths
from agentcli.record import record

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
MAX_FILE_CHARS = 40_000
MAX_IMPORT_DEPTH = 5
MAX_IMPORTS = 20
MAX_IMPORTED_CHARS = 80_000
_IMPORT = re.compile(r"(?<![^\s(])@((?:~|\.{1,2})?/?[\w.\-~/]+)")
_SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*", "id_ed25519*", "id_ecdsa*",
                 "id_dsa*", ".netrc", ".npmrc", ".pypirc", ".git-credentials", "credentials*", "*.kdbx",
                 "secrets.*", "*.secret")
_SECRET_DIRS = frozenset({".ssh", ".aws", ".gnupg", ".git", ".docker", ".kube", ".azure", ".config"})


@record
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


def load_memory(cwd: Path, project_root: Path, sources: tuple[str, ...] | None = None) -> Memory:
    """Read every memory file that applies to `cwd`. Unreadable files are skipped, long ones cut. `sources`
    (--setting-sources): the user's file loads with "user", the project's files with "project"."""
    files: list[Path] = []
    parts: list[str] = []
    for d in memory_dirs(cwd, project_root):
        if sources is not None and ("user" if d == paths.home() else "project") not in sources:
            continue
        f = find_memory_file(d)
        if f is None:
            continue
        text = read_memory(f, project_root)
        if not text:
            continue
        files.append(f)
        parts.append(f"Contents of {f}:\n\n{text}")
    if not parts:
        return Memory()
    head = "Instructions from the user's memory files (later, more specific files take precedence):"
    return Memory("\n\n".join([head, *parts]), tuple(files))


def read_memory(f: Path, project_root: Path) -> str:
    """One memory file's text with its `@imports` expanded ("" when unreadable, empty, or a project's memory
    file that is really a link to something outside the project: the same rules as an import)."""
    home = paths.home().resolve()
    own = f.parent.resolve() == home
    roots = _Roots((home, Path.home().resolve())) if own else _Roots((project_root.resolve(),), home)
    try:
        real = f.resolve(strict=True)
    except (OSError, RuntimeError):
        return ""
    if not roots.allow(real) or not real.is_file():
        return ""
    return _expand(real, roots, 0, _Imports({real})) or ""


@record
class _Roots:
    """Where imports may come from: anywhere under `dirs`, and Markdown files of the user's `$AGENTCLI_HOME`
    (`md_home`) outside its session store: a project's memory file must never pull in the user's config (API
    keys), `trusted.json` or another project's transcripts."""

    dirs: tuple[Path, ...]
    md_home: Path | None = None

    def allow(self, real: Path) -> bool:
        if any(real.is_relative_to(r) for r in self.dirs):
            return True
        home = self.md_home
        return (home is not None and real.is_relative_to(home) and real.suffix.lower() == ".md"
                and not real.is_relative_to(home / "projects"))


@record(frozen=False)
class _Imports:
    """What one memory file's imports have used: the files (each imported once: cycles end there) and the
    characters (a file importing hundreds of others must not fill the window)."""

    seen: set[Path]
    chars: int = 0


def _read(f: Path) -> str | None:
    from agentcli.settings.projectfiles import read_inside

    raw = read_inside(f, None, 4 * MAX_FILE_CHARS)  # bounded: a memory file may be gigabytes (or a FIFO)
    if raw is None:
        return None
    text = raw.strip()
    if len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + f"\n[… {f.name} cut at {MAX_FILE_CHARS} characters]"
    return text


def _expand(f: Path, roots: _Roots, depth: int, seen: _Imports) -> str | None:
    text = _read(f)
    if not text or depth >= MAX_IMPORT_DEPTH or "@" not in text:
        return text
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or "@" not in line:
            out.append(line)
            continue
        out.append(_IMPORT.sub(lambda m: _import(m, f, roots, depth, seen), _outside_code(line)).replace("\0", "@"))
    return "\n".join(out)


def _outside_code(line: str) -> str:
    """Inline code (`@x`) is text, not an import: protect it from the pattern."""
    return line if "`" not in line else re.sub(r"`[^`]*`", lambda m: m.group(0).replace("@", "\0"), line)


def _import(m: re.Match[str], f: Path, roots: _Roots, depth: int, seen: _Imports) -> str:
    target = import_target(m.group(1), f.parent, roots)
    if target is None or target in seen.seen:
        return m.group(0)
    if len(seen.seen) > MAX_IMPORTS or seen.chars >= MAX_IMPORTED_CHARS:
        return f"{m.group(0)} [not imported: over {MAX_IMPORTS} files or {MAX_IMPORTED_CHARS:,} characters]"
    seen.seen.add(target)
    text = _expand(target, roots, depth + 1, seen)
    if not text:
        return m.group(0)
    text = text[: MAX_IMPORTED_CHARS - seen.chars]
    seen.chars += len(text)
    return f"\n[imported from {target}]\n{text}\n"


def import_target(ref: str, base: Path, roots: _Roots) -> Path | None:
    """The file `@ref` may import, or None: outside `roots` (after symlinks), a secret, or not a regular file."""
    ref = ref.rstrip(".,;:)")
    path = Path.home() / ref[2:] if ref.startswith("~/") else base / ref
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if not roots.allow(real) or is_secret(real) or is_secret(path):
        return None
    try:
        if not real.is_file() or real.stat().st_size > 4 * MAX_FILE_CHARS:
            return None
    except OSError:
        return None
    return real


def is_secret(path: Path) -> bool:
    if any(part in _SECRET_DIRS for part in path.parts[:-1]):
        return True
    return any(fnmatch(path.name, pattern) for pattern in _SECRET_NAMES)


class NestedMemoryFiles:
    """Memory files in subdirectories of the cwd, loaded the first time a tool works under them; the loop
    appends each once to the tool results and re-injects them after a compaction."""

    def __init__(self, cwd: Path, project_root: Path) -> None:
        self.cwd = cwd.resolve()
        self.root = project_root.resolve()
        self._seen: set[Path] = set()
        self._texts: list[str] = []

    def __call__(self, tool_paths: list[str]) -> list[str]:
        new: list[str] = []
        for p in tool_paths:
            for d in self._dirs_for(p):
                if d in self._seen:
                    continue
                self._seen.add(d)
                f = find_memory_file(d)
                text = read_memory(f, self.root) if f is not None else ""
                if text:
                    rel = d.relative_to(self.root).as_posix()
                    new.append(f"Contents of {f} (instructions for files under {rel}/):\n\n{text}")
        self._texts.extend(new)
        return new

    def texts(self) -> list[str]:
        return list(self._texts)

    def _dirs_for(self, tool_path: str) -> list[Path]:
        """Directories strictly below the cwd, down to the path's own directory, inside the project."""
        try:  # whatever the model sent: a NUL byte, a loop of links, a path too long are not directories
            path = Path(os.path.expanduser(tool_path))
            path = (path if path.is_absolute() else self.cwd / path).resolve()
            d = path if path.is_dir() else path.parent
        except (OSError, RuntimeError, ValueError):
            return []
        if d == self.cwd or not d.is_relative_to(self.cwd) or not d.is_relative_to(self.root):
            return []
        chain = [d, *(p for p in d.parents if p.is_relative_to(self.cwd) and p != self.cwd)]
        return list(reversed(chain))
