"""Reading a text file a repository put in the project (a custom command, an agent definition, a memory file):
only when it really is a regular file inside the project, and only so much of it.

A cloned repository can make any of these a symlink to `~/.ssh/id_rsa` or a FIFO, or make it gigabytes long; what
they hold goes into the model's prompt, so a link out of the project is not followed and the read is bounded.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


def open_regular(path: str | Path, *, follow: bool = True) -> BinaryIO | None:
    """`path` opened for reading when it is a regular file, else None (absent, unreadable, a FIFO, a device, a
    folder): opened without blocking (opening a FIFO would wait for a writer) and, unless `follow`, without
    following a final symlink. The caller closes it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags if follow else flags | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        return None
    return open(fd, "rb")


def read_regular(path: str | Path, limit: int = -1, *, follow: bool = True) -> bytes | None:
    """At most `limit` bytes (all: -1) of `path`, or None when it is unreadable or not a regular file (see
    `open_regular`)."""
    f = open_regular(path, follow=follow)
    if f is None:
        return None
    with f:
        try:
            return f.read(limit)
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


# A plugin's or marketplace's JSON file (plugin.json, hooks.json, .mcp.json, marketplace.json): bigger is refused.
MAX_PLUGIN_FILE = 1024 * 1024


class Unreadable(Exception):
    """A file that is there but is not a readable regular text file (of at most the limit asked)."""


def read_text_regular(path: str | Path, limit: int) -> str | None:
    """`path`'s text (UTF-8) when it is a regular file of at most `limit` bytes; None when there is nothing at
    `path`; `Unreadable` otherwise (a FIFO, a device, too big, not UTF-8, no permission). For files a repository
    controls that agentcli itself parses (`.git/config`, `.mcp.json`): never a read that blocks or has no end."""
    if not os.path.lexists(path):
        return None
    raw = read_regular(path, limit + 1)
    if raw is None or len(raw) > limit:
        raise Unreadable(str(path))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Unreadable(str(path)) from err
