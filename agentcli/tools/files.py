"""File plumbing for Read/Write/Edit: which files were read (and when), decoding (writes: agentcli.atomicfile).

`ctx.read_files` (the read tracker) maps a file's real path (str) to its `st_mtime_ns` when last read or written by a
tool. Write and Edit refuse to change an existing file the model has not read, or that changed since.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from agentcli.tools.base import ToolContext


def record_read(ctx: ToolContext, path: Path, mtime_ns: int) -> None:
    ctx.read_files[str(path)] = mtime_ns


def require_fresh_read(ctx: ToolContext, path: Path, st: os.stat_result) -> str | None:
    """An error message unless `path` was read in this session and has not changed since."""
    when = ctx.read_files.get(str(path))
    if when is None:
        return f"File {path} has not been read yet. Read it first (the Read tool), then try again."
    if when != st.st_mtime_ns:
        return (
            f"File {path} has been modified since it was last read (by the user, a formatter or a command). "
            "Read it again, then try again."
        )
    return None


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


def unread_change(tool: str, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """Why an Edit or Write of an existing file would fail for want of a fresh read (None if it would not):
    asked before the person is asked to approve it, so no approval is spent on a call bound to fail."""
    if tool not in ("Edit", "Write") or not isinstance(args.get("file_path"), str):
        return None
    from agentcli.tools.paths import resolve_in_project

    path = resolve_in_project(args["file_path"], ctx).path
    try:
        st = os.stat(path)
    except OSError:
        return None  # a new file (or one the tool will explain): nothing to have read
    if not stat.S_ISREG(st.st_mode):
        return None
    return require_fresh_read(ctx, path, st)
