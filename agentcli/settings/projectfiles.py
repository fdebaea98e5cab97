"""Reading a text file a repository put in the project (a custom command, an agent definition, a memory file):
only when it really is a regular file inside the project, and only so much of it.

A cloned repository can make any of these a symlink to `~/.ssh/id_rsa` or a FIFO, or make it gigabytes long; what
they hold goes into the model's prompt, so a link out of the project is not followed and the read is bounded.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_regular(path: str | Path, limit: int = -1, *, follow: bool = True) -> bytes | None:
    """At most `limit` bytes (all: -1) of `path`, or None when it is unreadable or not a regular file: opened
    without blocking (a FIFO would hang the read) and, unless `follow`, without following a final symlink."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags if follow else flags | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with open(fd, "rb") as f:
        try:
            return f.read(limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
        except OSError:
            return None


def read_inside(path: Path, root: Path | None, limit: int) -> str | None:
    """At most `limit` bytes of `path` as text (UTF-8, errors replaced), or None: unreadable, not a regular
    file, or (when `root` is given) really outside `root` once links are followed."""
    try:
        real = path.resolve(strict=True)
        if root is not None and not real.is_relative_to(root.resolve()):
            return None
    except (OSError, RuntimeError, ValueError):
        return None
    data = read_regular(real, limit)
    return None if data is None else data.decode("utf-8", errors="replace")
