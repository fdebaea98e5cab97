"""A .gitignore-aware directory walk in Python, for when neither git nor ripgrep can list files.

Each .gitignore file is read by pathspec (git's own wildmatch rules: negation, directory-only patterns,
anchoring, `**`, escapes); the last file with a matching pattern decides, deeper files coming later, as in git.
An ignored directory is not entered, so nothing below it can be re-included (git's rule too). `.git` and a few
bulky tool directories are always skipped.

Also here: what the search tools leave out besides ignored files — those a permission deny rule protects
(`.env`, keys). The policy publishes its predicate in the tool context (tools never import the policy).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agentcli.settings.projectfiles import read_inside
from agentcli.tools.base import ToolContext

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

ALWAYS_SKIP = frozenset({".git", "node_modules", ".venv", "__pycache__", ".hg", ".svn"})


def read_denied(ctx: ToolContext) -> Callable[[str], bool] | None:
    """The session's "may not be read" test for one search (memoized per path), or None without a policy."""
    reads = ctx.reads
    if reads is None:
        return None
    pred = reads.read_denied
    seen: dict[str, bool] = {}

    def denied(path: str) -> bool:
        hit = seen.get(path)
        if hit is None:
            hit = seen[path] = bool(pred(path))
        return hit

    return denied


def read_denied_globs(ctx: ToolContext) -> tuple[str, ...]:
    """Name patterns every file of which is denied, cheap to hand to ripgrep as exclusions."""
    return ctx.reads.read_denied_globs() if ctx.reads is not None else ()


class Rule(NamedTuple):
    spec: GitIgnoreSpec  # the patterns of one .gitignore file
    base: str  # directory of the .gitignore, relative to the walk root ("" for the root)


def parse_gitignore(text: str, base: str) -> list[Rule]:
    import warnings

    from pathspec import GitIgnoreSpec

    with warnings.catch_warnings():  # `[[` in a pattern makes re warn ("possible nested set"): not the user's news
        warnings.simplefilter("ignore", FutureWarning)
        return [Rule(GitIgnoreSpec.from_lines(text.splitlines()), base)]


def is_ignored(rel: str, is_dir: bool, rules: list[Rule]) -> bool:
    ignored = False
    for rule in rules:
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            sub = rel[len(rule.base) + 1 :]
        else:
            sub = rel
        verdict = rule.spec.check_file(sub + "/" if is_dir else sub).include
        if verdict is not None:
            ignored = verdict
    return ignored


def walk_files(root: str, max_files: int = 200_000) -> Iterator[str]:
    """Relative paths (with `/`) of files under `root`, skipping what .gitignore files there exclude."""
    stack: list[tuple[str, list[Rule]]] = [("", [])]
    seen = 0
    while stack:
        rel_dir, rules = stack.pop()
        abs_dir = os.path.join(root, rel_dir) if rel_dir else root
        text = read_inside(Path(abs_dir, ".gitignore"), None, 1 << 20)  # never a FIFO, never unbounded
        if text is not None:
            rules = rules + parse_gitignore(text, rel_dir)
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[str] = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and entry.name in ALWAYS_SKIP:
                continue
            if is_ignored(rel, is_dir, rules):
                continue
            if is_dir:
                subdirs.append(rel)
            else:
                yield rel
                seen += 1
                if seen >= max_files:
                    return
        stack.extend((d, rules) for d in reversed(subdirs))
