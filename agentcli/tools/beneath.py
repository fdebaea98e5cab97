"""Reaching a project file without following a symlink that appeared after its path was checked.

`resolve_in_project` resolves a path and decides it is inside the project; the file is opened a moment later. In
between, anything running in the project (a background command, a test suite the user allowed) could replace one
of its directories by a symlink to `~` and turn the check into a read of `~/.ssh/id_rsa` or a write of
`~/.bashrc` — by agentcli itself, outside the sandbox. So the file tools walk down from the project root (or the
added directory) that holds the path one component at a time, never following a symlink (`O_NOFOLLOW`), and open
or replace the file relative to the directory they reached. A path outside every root (one the user approved, as
the policy decided it: agentcli.tools.paths) is reached the same way from `/`: every component of its real path
opened without following a link, so what is opened is the path that was approved or nothing. There is no plain
`open()` of a path.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from agentcli.tools.base import ToolContext
from agentcli.tools.paths import allowed_roots

_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _root_of(directory: str, ctx: ToolContext) -> str | None:
    found = [r for r in allowed_roots(ctx) if directory == r or directory.startswith(r.rstrip(os.sep) + os.sep)]
    return max(found, key=len) if found else None


@contextlib.contextmanager
def dir_beneath(path: Path, ctx: ToolContext, create: bool = False) -> Iterator[int]:
    """An open descriptor of `path`'s directory (a resolved path), reached from its root (or from `/` for a path
    under no root) without following a link: a directory swapped for a symlink since is an OSError. `create`:
    make missing directories."""
    if not _NOFOLLOW or not path.is_absolute():
        raise OSError(errno.EINVAL, "cannot open a path without following links on this system", str(path))
    root = _root_of(str(path.parent), ctx) or os.sep
    fd = os.open(root, _DIR)
    try:
        for part in path.parent.relative_to(root).parts:
            try:
                step = os.open(part, _DIR | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                step = os.open(part, _DIR | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = step
        yield fd
    finally:
        os.close(fd)


def open_beneath(path: Path, ctx: ToolContext) -> BinaryIO:
    """`path` (resolved) opened for reading as `dir_beneath` reaches it, the file itself not followed either."""
    with dir_beneath(path, ctx) as dfd:
        fd = os.open(path.name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=dfd)
    return os.fdopen(fd, "rb")
