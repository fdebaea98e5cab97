"""The file tools' text through the ACP client's file system (`fs/read_text_file`, `fs/write_text_file`), when
the client offers it in `initialize`: the model sees the editor's unsaved buffers and the editor follows the writes.

The tools have decided everything before they get here (agentcli.tools.fileaccess): the path is real, inside the
project (or approved outside it) and not protected by a deny rule. Only project paths go to the client: a path
outside every project root (one the user approved) is read and written on disk, so a client is never asked about
anything else. Before the client is asked, the path is walked from its root without following a link (as the
disk tools do), and the file's first bytes are checked to be text: binary files stay the tools' business.

A read the client refuses (not open, not found, any error) is the tool's ordinary error, as Zed's Claude Code
adapter (claude-code-acp) gives it; no silent fall back to disk, which would show the model a text the editor
does not have."""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.tools.base import ToolContext
from agentcli.tools.beneath import dir_beneath, open_beneath
from agentcli.tools.fileaccess import LOCAL
from agentcli.tools.files import NotText
from agentcli.tools.paths import allowed_roots

if TYPE_CHECKING:
    from acp import Client

SNIFF_BYTES = 8192


class ClientFiles:
    """`ctx.files` for one ACP session: reads (`read`) and writes (`write`) through the client where it offers
    them, on disk otherwise."""

    def __init__(self, client: Client, session_id: str, *, read: bool, write: bool) -> None:
        self.client = client
        self.session_id = session_id
        self.read = read
        self.write = write

    async def read_text(self, path: Path, ctx: ToolContext) -> str:
        if not (self.read and _in_project(path, ctx)):
            return await LOCAL.read_text(path, ctx)
        _sniff(path, ctx)
        try:
            answer = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        except Exception as err:  # the client's error, whatever it is, is the tool's ordinary failure
            raise OSError(errno.EIO, f"the editor could not give its text ({_why(err)})", str(path)) from None
        return answer.content

    async def write_text(self, path: Path, content: str, ctx: ToolContext) -> os.stat_result | None:
        if not (self.write and _in_project(path, ctx)):
            return await LOCAL.write_text(path, content, ctx)
        with dir_beneath(path, ctx, create=True) as dfd:  # the directories exist and none is a link
            try:
                st = os.stat(path.name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise OSError(errno.ELOOP if stat.S_ISLNK(st.st_mode) else errno.EINVAL,
                              "not a regular file", str(path))
        try:
            await self.client.write_text_file(session_id=self.session_id, path=str(path), content=content)
        except Exception as err:
            raise OSError(errno.EIO, f"the editor could not write it ({_why(err)})", str(path)) from None
        try:  # the editor saves it (Zed does) or keeps it in a buffer
            return os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return None


def _in_project(path: Path, ctx: ToolContext) -> bool:
    real = str(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in allowed_roots(ctx))


def _sniff(path: Path, ctx: ToolContext) -> None:
    """NotText when the file on disk is not UTF-8 text (its first bytes), as the disk read would say."""
    with open_beneath(path, ctx) as f:
        head = f.read(SNIFF_BYTES)
    if b"\0" in head:
        raise NotText("it looks like a binary file (contains NUL bytes)")
    try:  # not final: a character cut at the end of the sample is fine
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as e:
        raise NotText(f"it is not valid UTF-8 text (undecodable byte at offset {e.start})") from None


def _why(err: Exception) -> str:
    from acp import RequestError

    text = str(err) or type(err).__name__
    if isinstance(err, RequestError):
        data = err.data
        detail = data.get("details") or data.get("message") if isinstance(data, dict) else data
        if isinstance(detail, str) and detail:
            text = f"{text}: {detail}"
    return text[:300]
