"""File plumbing for Read/Write/Edit: which files were read (and when), decoding (writes: agentcli.atomicfile).

`ctx.read_files` (the read tracker) maps a file's real path (str) to a stamp of what a tool last read or wrote: the
file's `st_mtime_ns` on disk, or, where the text came from an editor's buffer (a `ctx.files` that `buffers` the
path, as over ACP), a `BufferStamp`: the digest of that text and the disk's time then, since the disk's time alone
says nothing about a buffer (which may not even be saved). Write and Edit refuse to change an existing file the
model has not read, or that changed since: a time is compared with the disk's before the file is read; a buffer's
text with what they read there, and the disk's time too when the file was on disk (a command that changed the file
is caught before the editor reloads its buffer, and an edit of the stale buffer would undo it).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from agentcli.tools.base import BufferStamp, ToolContext


def record_read(ctx: ToolContext, path: Path, mtime_ns: int) -> None:
    ctx.read_files[str(path)] = mtime_ns


def record_seen(ctx: ToolContext, path: Path, text: str, st: os.stat_result | None) -> None:
    """A tool read (or wrote) `text` through `ctx.files`: its digest where that access buffers `path` (an
    editor's), else the file's time on disk (`st`, its stat when read or after the write; None: not on disk)."""
    if ctx.files is not None and ctx.files.buffers(path, ctx):  # the disk (no `ctx.files`) buffers nothing
        ctx.read_files[str(path)] = BufferStamp(text_digest(text), st.st_mtime_ns if st is not None else None)
    elif st is not None:
        record_read(ctx, path, st.st_mtime_ns)


def text_digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_from_buffer(ctx: ToolContext, path: Path) -> bool:
    """`path` was last read or written through an editor's buffer: its check compares the text (`require_same_text`),
    and it may exist there only, not on disk."""
    return isinstance(ctx.read_files.get(str(path)), BufferStamp)


def require_fresh_read(ctx: ToolContext, path: Path, st: os.stat_result) -> str | None:
    """An error message unless `path` was read in this session and has not changed since."""
    when = ctx.read_files.get(str(path))
    if when is None:
        return f"File {path} has not been read yet. Read it first (the Read tool), then try again."
    if when != st.st_mtime_ns:
        return _CHANGED.format(path=path)
    return None


def require_same_text(ctx: ToolContext, path: Path, text: str | None, st: os.stat_result | None) -> str | None:
    """An error message unless `text` (the buffer's now; None: it could not be read) is the text last read or
    written through the editor's buffer of `path`, and the file on disk (`st`, None: not there) has not changed
    since either. (A file that was not on disk then may be now: the person saved the buffer.)"""
    stamp = ctx.read_files.get(str(path))
    if not isinstance(stamp, BufferStamp) or text is None or stamp.digest != text_digest(text):
        return _CHANGED.format(path=path)
    if stamp.mtime_ns is not None and (st is None or st.st_mtime_ns != stamp.mtime_ns):
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
    try:
        st: os.stat_result | None = os.stat(path)
    except OSError:
        st = None
    if read_from_buffer(ctx, path) and ctx.files is not None:  # an editor's buffer: its text now
        try:
            return require_same_text(ctx, path, await ctx.files.read_text(path, ctx), st)
        except (NotText, OSError):
            return None  # the tool explains
    if st is None:
        return None  # a new file (or one the tool will explain): nothing to have read
    if not stat.S_ISREG(st.st_mode):
        return None
    return require_fresh_read(ctx, path, st)
