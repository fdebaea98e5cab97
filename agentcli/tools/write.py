"""Write: create a file or replace one the model has read, atomically."""

from __future__ import annotations

import os
import stat
from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.diff import unified_diff
from agentcli.tools.fileaccess import file_access
from agentcli.tools.files import NotText, read_from_buffer, record_seen, require_fresh_read, require_same_text
from agentcli.tools.paths import display_path, refuse_outside, resolve_in_project
from agentcli.tools.specs import FromSpec
from agentcli.tools.text import split_lines


class WriteTool(FromSpec, spec="Write"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        resolved = resolve_in_project(args["file_path"], ctx)
        refusal = refuse_outside(resolved, ctx)
        if refusal:
            return ToolOutput.error(refusal)
        path, content = resolved.path, args["content"]
        name = display_path(path, ctx)
        old: str | None = None
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        except OSError as e:
            return ToolOutput.error(f"Cannot write {path}: {e.strerror}")
        buffered = read_from_buffer(ctx, path)  # read through an editor's buffer: its text is compared
        if st is not None and stat.S_ISDIR(st.st_mode):
            return ToolOutput.error(f"{path} is a directory; give the path of a file inside it.")
        if st is not None and not buffered and (stale := require_fresh_read(ctx, path, st)):
            return ToolOutput.error(stale)
        if st is not None or buffered:
            try:
                old = await file_access(ctx).read_text(path, ctx)
            except (NotText, OSError):
                old = None
            if buffered and (st is not None or old is not None) and (stale := require_same_text(ctx, path, old, st)):
                return ToolOutput.error(stale)
        try:
            new_st = await file_access(ctx).write_text(path, content, ctx)
        except OSError as e:
            return ToolOutput.error(f"Cannot write {path}: {e.strerror or e}")
        record_seen(ctx, path, content, new_st)
        created = st is None and old is None
        n = len(split_lines(content))
        meta: dict[str, Any] = {"path": str(path), "created": created, "lines": n}
        if created:
            return ToolOutput(f"Created {path} ({n} lines).", display=f"new file {name}, {n} lines", metadata=meta)
        if old is None:
            return ToolOutput(f"Overwrote {path} ({n} lines).", display=f"rewrote {name}", metadata=meta)
        diff = unified_diff(old, content, name)
        meta.update(added=diff.added, removed=diff.removed)
        if old == content:
            return ToolOutput(f"{path} already had this content; nothing changed.", metadata=meta)
        return ToolOutput(
            f"Updated {path} ({n} lines; +{diff.added} -{diff.removed}).", display=diff.text, metadata=meta
        )
