"""One decision's view of the file system: words resolved to real paths (wildcards expanded), with a cache
that lives for that decision only — the file system may change between two calls."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from agentcli.permissions import pathscan
from agentcli.permissions.ruleview import RuleView
from agentcli.permissions.shell import Word

# `~+` is $PWD, `~-` $OLDPWD, `~N` / `~+N` / `~-N` entries of the directory stack: places the policy does not
# follow, so a word naming them is unknown, never a file under a directory called `~-`.
_DIR_STACK = re.compile(r"~(?:[+-]\d*|\d+)(?:/|$)")


@dataclass(slots=True)
class Scope:
    policy: RuleView
    cache: dict[str, Path]

    def resolve(self, word: Word, cwd: Path | None) -> Path | None:
        """The one real path a word names, or None when it cannot be known (computed, or several files)."""
        found = self.resolve_all(word, cwd)
        return found[0] if found is not None and len(found) == 1 else None

    def resolve_all(self, word: Word, cwd: Path | None) -> list[Path] | None:
        """The real paths a word names (relative to the tracked cwd; wildcards and braces expanded as bash
        would now), or None when they cannot be known."""
        if word.dynamic or (word.tilde and _DIR_STACK.match(word.text)):
            return None
        text = os.path.expanduser(word.text) if word.tilde else word.text
        if word.glob:
            # braces first, as bash does: `{/etc/passwd,a}` names /etc/passwd, not <cwd>//etc/passwd
            expanded = pathscan.expand(text, None if cwd is None else str(cwd))
            return None if expanded is None else [self._real(t) for t in expanded]
        if not os.path.isabs(text):
            if cwd is None:
                return None
            text = os.path.join(cwd, text)
        return [self._real(text)]

    def tree_problem(
        self, word: Word, cwd: Path | None, *, follow: bool, hidden: bool, only: tuple[str, ...] = ()
    ) -> str | None:
        """A protected file (or a way out of the project) a recursive read of `word` reaches."""
        policy = self.policy
        denied, walks = policy.denied_matcher()
        for root in self.resolve_all(word, cwd) or []:
            if not root.is_dir():
                continue
            hit = pathscan.protected_under(
                str(root), denied, lambda p: policy.inside(Path(p)), follow=follow, hidden=hidden, only=only,
                cache=walks,
            )
            if hit is not None:
                return hit
        return None

    def _real(self, text: str) -> Path:
        found = self.cache.get(text)
        if found is None:
            found = self.cache[text] = Path(self._realpath(text))
        return found

    def _realpath(self, text: str) -> str:
        """os.path.realpath, with the real parent directory shared by sibling paths (`ls a/x a/y …`)."""
        head, tail = os.path.split(text)
        if tail in ("", ".", "..") or not head:
            return os.path.realpath(text)
        key = head + "/"
        parent = self.cache.get(key)
        if parent is None:
            parent = self.cache[key] = Path(os.path.realpath(head))
        candidate = os.path.join(parent, tail)
        return os.path.realpath(candidate) if os.path.islink(candidate) else candidate
