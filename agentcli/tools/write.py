"""Write: create a file or replace one the model has read, atomically."""

from __future__ import annotations

import os
import stat
from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.diff import unified_diff
from agentcli.tools.fileaccess import file_access
from agentcli.tools.files import NotText, record_read, require_fresh_read
from agentcli.tools.paths import display_path, refuse_outside, resolve_in_project
from agentcli.tools.text import split_lines

DESCRIPTION = """\
Write a file to the local filesystem, replacing it if it exists.

- `file_path` should be an absolute path; missing parent directories are created.
- To overwrite an existing file you must have read it with Read in this conversation first; otherwise the
  call fails. For changes to part of a file, prefer Edit, which sends only the changed text.
- `content` is the complete new content of the file.
- Only create new files when the task needs them; do not write documentation files unless asked."""


INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "minLength": 1, "description": "Absolute path of the file to write"},
        "content": {"type": "string", "description": "The full content to write"},
    },
    "required": ["file_path", "content"],
    "additionalProperties": False,
}


class WriteTool:
    name: str = "Write"
    description: str = DESCRIPTION
    input_schema: dict[str, Any] = INPUT_SCHEMA
    read_only: bool = False
    destructive: bool = False
    edits_files: bool = True

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
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                return ToolOutput.error(f"{path} is a directory; give the path of a file inside it.")
            stale = require_fresh_read(ctx, path, st)
            if stale:
                return ToolOutput.error(stale)
            try:
                old = await file_access(ctx).read_text(path, ctx)
            except (NotText, OSError):
                old = None
        try:
            new_st = await file_access(ctx).write_text(path, content, ctx)
        except OSError as e:
            return ToolOutput.error(f"Cannot write {path}: {e.strerror or e}")
        if new_st is not None:
            record_read(ctx, path, new_st.st_mtime_ns)
        n = len(split_lines(content))
        meta: dict[str, Any] = {"path": str(path), "created": st is None, "lines": n}
        if st is None:
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
