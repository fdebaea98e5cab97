"""What a read-only command reads, as the allowlist (agentcli.permissions.readonly) reports it."""

from __future__ import annotations

from dataclasses import field

from agentcli.permissions.shell import Word
from agentcli.record import record


@record(frozen=False)
class Reads:
    """`paths`: files and directories named (each must be inside the project and not protected).
    `trees`: directories read recursively, walked for protected files (`follow`: symlinks are followed,
    `hidden`: dot files are read, `only`: just files whose name matches one of these globs).
    `git_dirs`: set for git — the `-C` directories, in order, from which git finds the repository whose
    configuration must be checked before the command counts as read-only."""

    paths: list[Word] = field(default_factory=list)
    trees: list[Word] = field(default_factory=list)
    follow: bool = False
    hidden: bool = True
    git_dirs: list[Word] | None = None
    only: tuple[str, ...] = ()  # base-name globs the reader limits itself to (`grep --include='*.py'`)
