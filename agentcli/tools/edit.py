"""Edit: exact string replacement in a file the model has read."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.diff import unified_diff
from agentcli.tools.fileaccess import file_access
from agentcli.tools.files import NotText, read_from_buffer, record_seen, require_fresh_read, require_same_text
from agentcli.tools.paths import display_path, refuse_outside, resolve_in_project
from agentcli.tools.specs import FromSpec
from agentcli.tools.text import number_lines, split_lines

SNIPPET_CONTEXT = 4
MAX_SNIPPET_LINES = 40
_LINE_PREFIX = re.compile(r"^\s*\d+\t", re.MULTILINE)

class EditTool(FromSpec, spec="Edit"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        resolved = resolve_in_project(args["file_path"], ctx)
        refusal = refuse_outside(resolved, ctx)
        if refusal:
            return ToolOutput.error(refusal)
        path = resolved.path
        old_s: str = args["old_string"]
        new_s: str = args["new_string"]
        if old_s == new_s:
            return ToolOutput.error("old_string and new_string are identical; there is nothing to change.")
        buffered = read_from_buffer(ctx, path)  # read through an editor's buffer: its text is compared
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
            if not buffered:  # (a buffer the editor has not saved is edited there)
                if old_s == "":
                    return await _create(path, new_s, ctx)
                return ToolOutput.error(
                    f"File does not exist: {path}. To create a file use Write (or Edit with an empty old_string)."
                )
        except OSError as e:
            return ToolOutput.error(f"Cannot edit {path}: {e.strerror}")
        if st is not None and stat.S_ISDIR(st.st_mode):
            return ToolOutput.error(f"{path} is a directory, not a file.")
        if st is not None and not buffered and (stale := require_fresh_read(ctx, path, st)):
            return ToolOutput.error(stale)
        try:
            text = await file_access(ctx).read_text(path, ctx)
        except NotText as e:
            return ToolOutput.error(f"Cannot edit {path}: {e}.")
        except OSError as e:
            return ToolOutput.error(f"Cannot edit {path}: {e.strerror}")
        if buffered and (stale := require_same_text(ctx, path, text, st)):
            return ToolOutput.error(stale)
        result = _replace(text, old_s, new_s, bool(args.get("replace_all", False)), path)
        if isinstance(result, ToolOutput):
            return result
        new_text, count, first_at = result
        try:
            new_st = await file_access(ctx).write_text(path, new_text, ctx)
        except OSError as e:
            return ToolOutput.error(f"Cannot write {path}: {e.strerror or e}")
        record_seen(ctx, path, new_text, new_st)
        return _success(path, text, new_text, count, first_at, new_s, ctx)


def edited_text(text: str, args: dict[str, Any], path: Path) -> str | None:
    """The file's text after the Edit call `args` (what the approval prompt diffs), None if it would fail."""
    result = _replace(text, str(args.get("old_string", "")), str(args.get("new_string", "")),
                      bool(args.get("replace_all", False)), path)
    return None if isinstance(result, ToolOutput) else result[0]


def _replace(text: str, old_s: str, new_s: str, replace_all: bool, path: Path) -> tuple[str, int, int] | ToolOutput:
    """(new text, occurrences replaced, index of the first) or an error result the model can act on."""
    if old_s == "":
        if text.strip():
            return ToolOutput.error(
                f"old_string is empty but {path} is not; give the exact text to replace, or use Write."
            )
        return new_s, 1, 0
    count = text.count(old_s)
    if count == 0 and "\r\n" in text and "\r\n" not in old_s:
        # The model copies text from Read output, which shows CRLF files with bare newlines.
        old_s, new_s = old_s.replace("\n", "\r\n"), new_s.replace("\n", "\r\n")
        count = text.count(old_s)
    if count == 0:
        return ToolOutput.error(_not_found_message(text, old_s, path))
    if count > 1 and not replace_all:
        return ToolOutput.error(
            f"old_string occurs {count} times in {path} (at lines {_line_numbers(text, old_s)}). "
            "Add more surrounding context to make it unique, or set replace_all to true to change all of them."
        )
    first_at = text.index(old_s)
    new_text = text.replace(old_s, new_s) if replace_all else text.replace(old_s, new_s, 1)
    return new_text, count if replace_all else 1, first_at


def _normalize_ws(s: str) -> str:
    return " ".join(s.split())


def _not_found_message(text: str, old_s: str, path: Path) -> str:
    msg = f"old_string was not found in {path}."
    if _LINE_PREFIX.search(old_s) and _LINE_PREFIX.sub("", old_s) in text:
        return msg + (
            " It seems to include Read's line-number prefixes (spaces, number, tab); "
            "remove them and use only the file's text."
        )
    norm_old = _normalize_ws(old_s)
    if norm_old and norm_old in _normalize_ws(text):
        return msg + (
            " A match exists when whitespace is ignored: check indentation (tabs vs spaces), trailing "
            "spaces and line breaks, and copy the text exactly as the file has it."
        )
    return msg + " Read the file again and copy the exact text you want to replace."


def _line_numbers(text: str, needle: str, most: int = 10) -> str:
    found: list[str] = []
    at = text.find(needle)
    while at >= 0 and len(found) < most:
        found.append(str(text.count("\n", 0, at) + 1))
        at = text.find(needle, at + max(len(needle), 1))
    return ", ".join(found)


async def _create(path: Path, content: str, ctx: ToolContext) -> ToolOutput:
    try:
        st = await file_access(ctx).write_text(path, content, ctx)
    except OSError as e:
        return ToolOutput.error(f"Cannot create {path}: {e.strerror or e}")
    record_seen(ctx, path, content, st)
    n = len(split_lines(content))
    return ToolOutput(
        f"Created {path} ({n} lines).",
        display=f"new file {display_path(path, ctx)}, {n} lines",
        metadata={"path": str(path), "created": True, "lines": n},
    )


def _success(path: Path, old: str, new: str, count: int, first_at: int, new_s: str, ctx: ToolContext) -> ToolOutput:
    diff = unified_diff(old, new, display_path(path, ctx))
    lines = split_lines(new)
    first_line = old.count("\n", 0, first_at)
    last_line = first_line + new_s.count("\n")
    lo = max(first_line - SNIPPET_CONTEXT, 0)
    hi = min(last_line + SNIPPET_CONTEXT + 1, len(lines), lo + MAX_SNIPPET_LINES)
    snippet = number_lines(lines[lo:hi], lo + 1)
    what = f"replaced {count} occurrences" if count > 1 else "replaced 1 occurrence"
    content = f"Edited {path}: {what}. The result around the {'first ' if count > 1 else ''}change:\n{snippet}"
    return ToolOutput(
        ctx.redact(content),
        display=diff.text,
        metadata={"path": str(path), "replacements": count, "added": diff.added, "removed": diff.removed},
    )
