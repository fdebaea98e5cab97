"""What the user's own git will run after the session: checked after every confined command.

A command can plant what the sandbox's read-only files do not cover, because it did not exist when the command
started: a nested repository given a `core.fsmonitor` and added to the index as a gitlink (the user's next
`git status` at the root enters it and runs the program), a `commondir` pointing at a planted directory. So
after each command the repositories git will read from each writable root — the root's and every gitlink's in
its index — are judged as `agentcli.proc.gitsafe` judges them before running git (their configuration must name
no program), and compared with how they were when the session started. A repository that gained a program is
put back: its `config`, `config.worktree` and `commondir` set aside (renamed) and an inert `config` put in; if
that does not do, its `.git` is moved aside. Nothing is deleted. The index is parsed here; git is never run.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

_GITLINK = 0o160000
_INERT = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
MAX_INDEX_BYTES = 256 * 1024 * 1024


def gitlinks(index: Path) -> list[str]:
    """The paths the index at `index` records as gitlinks (nested repositories), [] if it cannot be read."""
    from agentcli.settings.projectfiles import read_regular

    data = read_regular(index, MAX_INDEX_BYTES)  # a repository's index can be a FIFO: never a read that blocks
    if data is None:
        return []
    if len(data) < 12 or data[:4] != b"DIRC":
        return []
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return []
    out: list[str] = []
    pos, prev = 12, b""
    for _ in range(count):
        if pos + 62 > len(data):
            break
        mode = struct.unpack(">I", data[pos + 24 : pos + 28])[0]
        flags = struct.unpack(">H", data[pos + 60 : pos + 62])[0]
        start = pos + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            strip, start = _varint(data, start)
            end = data.index(b"\0", start)
            name = prev[: len(prev) - strip] + data[start:end]
            pos = end + 1
        else:
            end = data.index(b"\0", start)
            name = data[start:end]
            pos += ((end - pos) // 8 + 1) * 8  # entries are NUL-padded to a multiple of 8 bytes
        prev = name
        if mode & 0o170000 == _GITLINK:
            out.append(os.fsdecode(name))
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset encoding (varint.c), used by index version 4."""
    byte = data[pos]
    value = byte & 0x7F
    while byte & 0x80:
        pos += 1
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, pos + 1


def repositories(root: Path) -> list[Path]:
    """The working trees git reads from `root`: itself (when it is a repository) and its gitlinks."""
    dotgit = root / ".git"
    if os.path.islink(dotgit) or not os.path.exists(dotgit):
        return []
    if not os.path.isdir(dotgit):
        return [root]  # a `.git` file: the gitlinks are in the index of the directory it names
    return [root, *(root / p for p in gitlinks(dotgit / "index") if not p.startswith("/") and ".." not in p)]


def survey(roots: tuple[Path, ...]) -> dict[Path, str | None]:
    """For every repository git reads from the roots: why it may run a program, or None."""
    from agentcli.permissions.gitcheck import repo_problem

    out: dict[Path, str | None] = {}
    for root in roots:
        for repo in repositories(root):
            if repo == root or os.path.lexists(repo / ".git"):
                out[repo] = repo_problem(str(repo))
    return out


def baseline(roots: tuple[Path, ...], nested: list[Path]) -> dict[Path, str | None]:
    """`survey` at the session's start, with every nested repository found then (`nested`: execution-config
    paths of the walk), gitlinked or not: the user's own may name a program, and a later `git add` of it is not
    a plant."""
    from agentcli.permissions.gitcheck import repo_problem

    found = survey(roots)
    for p in nested:
        repo = p.parent if p.name == ".git" else p.parent.parent if p.parent.name == ".git" else None
        if repo is not None and repo not in found:
            found[repo] = repo_problem(str(repo))
    return found


def undo_planted(roots: tuple[Path, ...], before: dict[Path, str | None]) -> list[str]:
    """Put back every repository that names a program now and did not when `before` was taken. Returns one line
    per repository: what was done."""
    from agentcli.permissions.gitcheck import repo_problem

    said: list[str] = []
    for repo, problem in survey(roots).items():
        if problem is None or before.get(repo) is not None:
            continue
        if repo in roots and repo in before:
            said.append(f"{repo}: {problem}; not undone (the sandbox keeps this repository's own config "
                        "read-only: check it before running git there)")
            continue
        _neutralise(repo / ".git")
        if repo_problem(str(repo)) is not None:
            aside = repo / ".git.agentcli-planted"
            os.replace(repo / ".git", aside)
            said.append(f"{repo}: {problem}; its .git was moved to {aside.name}, so git no longer enters it")
        else:
            said.append(f"{repo}: {problem}; its configuration was set aside (.git/*.agentcli-planted) for an "
                        "inert one")
    return said


def _neutralise(dotgit: Path) -> None:
    """Set the repository's configuration aside (renamed `*.agentcli-planted`, nothing deleted: it may hold
    remotes the user wants back) and give it an inert one."""
    if not dotgit.is_dir() or dotgit.is_symlink():
        return
    for name in ("config.worktree", "commondir", "config"):
        if os.path.lexists(dotgit / name):
            os.replace(dotgit / name, dotgit / f"{name}.agentcli-planted")
    tmp = dotgit / "config.agentcli-tmp"
    tmp.write_text(_INERT, encoding="utf-8")
    os.replace(tmp, dotgit / "config")
