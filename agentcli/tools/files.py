"""File plumbing for Read/Write/Edit: which files were read (and when), decoding (writes: agentcli.atomicfile).

`ctx.read_files` (the read tracker) maps a file's real path (str) to a stamp of what a tool last read or wrote: the
file's `st_mtime_ns` on disk, or, where the text came from an editor's buffer (a `ctx.files` that `buffers` the
path, as over ACP), the digest of that text (`sha256:…`), since the disk's time says nothing about a buffer (which
may not even be saved). Write and Edit refuse to change an existing file the model has not read, or that changed
since: a time is compared with the disk's before the file is read, a digest with the text they read.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from agentcli.tools.base import ToolContext


def record_read(ctx: ToolContext, path: Path, mtime_ns: int) -> None:
    ctx.read_files[str(path)] = mtime_ns


def record_seen(ctx: ToolContext, path: Path, text: str, st: os.stat_result | None) -> None:
    """A tool read (or wrote) `text` through `ctx.files`: its digest where that access buffers `path` (an
    editor's), else the file's time on disk (`st`, its stat when read or after the write; None: not on disk)."""
    if ctx.files is not None and ctx.files.buffers(path, ctx):  # the disk (no `ctx.files`) buffers nothing
        record_text(ctx, path, text)
    elif st is not None:
        record_read(ctx, path, st.st_mtime_ns)


def record_text(ctx: ToolContext, path: Path, text: str) -> None:
    """`text` is what a tool read from (or wrote to) the editor's buffer of `path`."""
    ctx.read_files[str(path)] = text_digest(text)


def text_digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_from_buffer(ctx: ToolContext, path: Path) -> bool:
    """`path` was last read or written through an editor's buffer: its check compares the text (`require_same_text`),
    and it may exist there only, not on disk."""
    return isinstance(ctx.read_files.get(str(path)), str)


def require_fresh_read(ctx: ToolContext, path: Path, st: os.stat_result) -> str | None:
    """An error message unless `path` was read in this session and has not changed since."""
    when = ctx.read_files.get(str(path))
    if when is None:
        return f"File {path} has not been read yet. Read it first (the Read tool), then try again."
    if when != st.st_mtime_ns:
        return _CHANGED.format(path=path)
    return None


def require_same_text(ctx: ToolContext, path: Path, text: str | None) -> str | None:
    """An error message unless `text` (the buffer's now; None: it could not be read) is the text last read or
    written through the editor's buffer of `path`."""
    if text is None or ctx.read_files.get(str(path)) != text_digest(text):
        return _CHANGED.format(path=path)
    return None


_CHANGED = ("File {path} has been modified since it was last read (by the user, a formatter or a command). "
            "Read it again, then try again.")


class NotText(ValueError):
    """The bytes are not UTF-8 text; the message says why."""


def decode_text(data: bytes) -> str:
    """Decode file bytes as UTF-8 text, refusing binary content (NUL bytes or invalid UTF-8)."""
    if b"\0" in data:
        raise NotText("it looks like a binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotText(f"it is not valid UTF-8 text (undecodable byte at offset {e.start})") from None


async def unread_change(tool: str, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """Why an Edit or Write of an existing file would fail for want of a fresh read (None if it would not):
    asked before the person is asked to approve it, so no approval is spent on a call bound to fail."""
    if tool not in ("Edit", "Write") or not isinstance(args.get("file_path"), str):
        return None
    from agentcli.tools.paths import resolve_in_project

    path = resolve_in_project(args["file_path"], ctx).path
    if read_from_buffer(ctx, path) and ctx.files is not None:  # an editor's buffer: its text now
        try:
            return require_same_text(ctx, path, await ctx.files.read_text(path, ctx))
        except (NotText, OSError):
            return None  # the tool explains
    try:
        st = os.stat(path)
    except OSError:
        return None  # a new file (or one the tool will explain): nothing to have read
    if not stat.S_ISREG(st.st_mode):
        return None
    return require_fresh_read(ctx, path, st)
