"""The file tools' text I/O: the injected `ctx.files` (agentcli.tools.base.FileAccess), else the local disk.

Only the reading and writing of a text file's content goes through it; everything around it stays in the tools
(path resolution and confinement, the read-before-edit check, size limits, binary and image files, diffs,
redaction) and in the loop (checkpoints before a call that may change files)."""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.atomicfile import atomic_write
from agentcli.tools.base import FileAccess, ToolContext
from agentcli.tools.beneath import dir_beneath, open_beneath
from agentcli.tools.files import decode_text


class LocalFiles:
    """The local disk, reached without following a link (agentcli.tools.beneath), written atomically."""

    async def read_text(self, path: Path, ctx: ToolContext) -> str:
        with open_beneath(path, ctx) as f:
            return decode_text(f.read())

    async def write_text(self, path: Path, content: str, ctx: ToolContext) -> os.stat_result | None:
        with dir_beneath(path, ctx, create=True) as dfd:
            return atomic_write(path, content, dir_fd=dfd)


LOCAL = LocalFiles()


def file_access(ctx: ToolContext) -> FileAccess:
    return ctx.files if ctx.files is not None else LOCAL
