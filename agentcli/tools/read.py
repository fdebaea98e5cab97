"""Read: a text file's lines, numbered like `cat -n`, a window at a time."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.beneath import open_beneath
from agentcli.tools.fileaccess import file_access
from agentcli.tools.files import NotText, decode_text, read_from_buffer, record_read, record_seen
from agentcli.tools.paths import refuse_outside, resolve_in_project
from agentcli.tools.specs import DEFAULT_LIMIT, FromSpec
from agentcli.tools.text import number_lines, split_lines

MAX_OUTPUT_CHARS = 100_000
# Files bigger than this are scanned line by line rather than loaded whole.
WHOLE_FILE_BYTES = 8 * 1024 * 1024

class ReadTool(FromSpec, spec="Read"):
    def __init__(self, whole_file_bytes: int = WHOLE_FILE_BYTES) -> None:
        self.whole_file_bytes = whole_file_bytes

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        resolved = resolve_in_project(args["file_path"], ctx)
        refusal = refuse_outside(resolved, ctx)
        if refusal:
            return ToolOutput.error(refusal)
        path = resolved.path
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return await _unsaved(path, args, ctx)
        except OSError as e:
            return ToolOutput.error(f"Cannot read {path}: {e.strerror}")
        if stat.S_ISDIR(st.st_mode):
            return ToolOutput.error(
                f"{path} is a directory, not a file. List it with Glob (pattern '*' and path '{path}') "
                f"or with Bash `ls {path}`."
            )
        if not stat.S_ISREG(st.st_mode):
            return ToolOutput.error(f"{path} is not a regular file (a device, FIFO or socket).")
        # notebooks, images and files too big to load whole are read from disk even when an editor's file
        # system serves the text (`ctx.files`): it gives whole text files only
        if path.suffix.lower() == ".ipynb":
            return _notebook(path, st, ctx)
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return _image(path, st, ctx)
        start, limit = _window(args)
        try:
            if st.st_size > self.whole_file_bytes:
                lines, total = _scan_window(open_beneath(path, ctx), start, limit)
                record_read(ctx, path, st.st_mtime_ns)
            else:
                text = await file_access(ctx).read_text(path, ctx)
                record_seen(ctx, path, text, st)
                all_lines = split_lines(text)
                total = len(all_lines)
                lines = all_lines[start - 1 : start - 1 + limit]
        except NotText as e:
            return ToolOutput.error(f"Cannot read {path}: {e}. Read shows text files only.")
        except OSError as e:
            return ToolOutput.error(f"Cannot read {path}: {e.strerror}")
        return _render(path, lines, start, total, ctx)


def _window(args: dict[str, Any]) -> tuple[int, int]:
    """The first line (1-based) and how many lines a call asks for."""
    return max(int(args.get("offset") or 1), 1), int(args.get("limit") or DEFAULT_LIMIT)


async def _unsaved(path: Path, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    """A file not on disk: the editor's buffer of it, when a tool read or wrote it there (a file written and not
    saved); else the missing file's error."""
    if not read_from_buffer(ctx, path):
        return ToolOutput.error(_missing_message(path))
    try:
        text = await file_access(ctx).read_text(path, ctx)
    except (NotText, OSError):
        return ToolOutput.error(_missing_message(path))
    record_seen(ctx, path, text, None)
    start, limit = _window(args)
    all_lines = split_lines(text)
    return _render(path, all_lines[start - 1 : start - 1 + limit], start, len(all_lines), ctx)


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def _image(path: Path, st: os.stat_result, ctx: ToolContext) -> ToolOutput:
    """An image goes to the model as an image (after the tool results), for models that take images."""
    from agentcli.llm.images import MAX_FILE_BYTES, ImageError, load_image

    if ctx.model is None or not ctx.model.accepts_images:
        model = ctx.model.model if ctx.model is not None else "this model"
        return ToolOutput.error(f"{path} is an image, and {model} does not accept images. Switch to a model that "
                                "does (Claude, GPT-4.1/5, Gemini), or describe what you need from it otherwise.")
    try:
        with open_beneath(path, ctx) as f:
            raw = f.read(MAX_FILE_BYTES + 1)
        block = load_image(path, raw=raw)
    except OSError as err:
        return ToolOutput.error(f"Cannot read {path}: {err.strerror or err}")
    except ImageError as err:
        return ToolOutput.error(str(err))
    record_read(ctx, path, st.st_mtime_ns)
    return ToolOutput(f"The image {path} ({block.media_type}, {st.st_size:,} bytes) is attached below.",
                      metadata={"attachments": [block]})


def _notebook(path: Path, st: os.stat_result, ctx: ToolContext) -> ToolOutput:
    from agentcli.tools.notebook import NotebookError, load, render

    try:
        text = render(path, load(path, ctx))
    except (NotebookError, OSError, UnicodeDecodeError) as err:
        return ToolOutput.error(f"Cannot read {path}: {err}")
    record_read(ctx, path, st.st_mtime_ns)
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n\n(Output capped at {MAX_OUTPUT_CHARS} characters.)"
    return ToolOutput(ctx.redact(text), metadata={"path": str(path)})


def _render(path: Path, lines: list[str], start: int, total: int | None, ctx: ToolContext) -> ToolOutput:
    meta: dict[str, Any] = {"path": str(path), "total_lines": total}
    if total == 0:
        return ToolOutput(f"(The file {path} exists but is empty.)", metadata=meta)
    if not lines:
        return ToolOutput.error(f"{path} has {total} lines; offset {start} is past the end. Use a smaller offset.")
    body = number_lines(lines, start)
    shown_end = start + len(lines) - 1
    if len(body) > MAX_OUTPUT_CHARS:
        cut = body.rfind("\n", 0, MAX_OUTPUT_CHARS)
        body = body[: max(cut, 0)]
        shown_end = start + body.count("\n")
        body += f"\n\n(Output capped at {MAX_OUTPUT_CHARS} characters.)"
    if total is None or shown_end < total:
        of = f" of {total}" if total is not None else ""
        body += f"\n\n(Showing lines {start}-{shown_end}{of}. To read more, call Read with offset={shown_end + 1}.)"
    meta.update(start=start, end=shown_end)
    return ToolOutput(ctx.redact(body), metadata=meta)


def _scan_window(file: BinaryIO, start: int, limit: int) -> tuple[list[str], int | None]:
    """Lines `start`…`start+limit-1` of a big file without loading it; the total is unknown (None) then."""
    out: list[str] = []
    n = 0
    with file as f:
        decode_text(f.read(8192))
        f.seek(0)
        for n, raw in enumerate(f, 1):
            if n < start:
                continue
            if len(out) >= limit:
                return out, None
            out.append(decode_text(raw).rstrip("\n").removesuffix("\r"))
    return out, n


def _missing_message(path: Path) -> str:
    parent = path.parent
    if not parent.is_dir():
        return f"File does not exist: {path} (its directory {parent} does not exist either)."
    msg = f"File does not exist: {path}."
    try:
        names = os.listdir(parent)
    except OSError:
        return msg
    if len(names) <= 5000:
        import difflib  # only on this error path; it is not free to import

        close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
        if close:
            msg += " Did you mean: " + ", ".join(str(parent / c) for c in close) + "?"
    return msg
