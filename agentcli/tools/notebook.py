"""Jupyter notebooks: how Read shows a `.ipynb` (cells with their ids, sources and text outputs), and
NotebookEdit (Claude Code's name and arguments) to replace, insert or delete a cell. nbformat reads, validates
and writes them, so a notebook stays valid; it is imported only when a notebook is touched."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentcli.atomicfile import atomic_write
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.beneath import dir_beneath, open_beneath
from agentcli.tools.files import record_read, require_fresh_read
from agentcli.tools.paths import refuse_outside, resolve_in_project
from agentcli.tools.specs import FromSpec

MAX_OUTPUT_CHARS = 2000  # of each cell's outputs


class NotebookError(Exception):
    pass


def load(path: Path, ctx: ToolContext | None = None) -> Any:
    """The notebook at `path`; with `ctx`, reached from the project root without following a swapped-in link
    (agentcli.tools.beneath)."""
    import io

    import nbformat

    try:
        raw = open_beneath(path, ctx) if ctx is not None else path.open("rb")  # closed with its wrapper
        with io.TextIOWrapper(raw, encoding="utf-8") as f:
            return nbformat.read(f, as_version=4)
    except (ValueError, KeyError, nbformat.ValidationError) as err:
        raise NotebookError(f"{path} is not a valid notebook: {err}") from err


def render(path: Path, nb: Any) -> str:
    parts = [f"Notebook {path} ({len(nb.cells)} cells, {nb.metadata.get('kernelspec', {}).get('language', '?')})"]
    for i, cell in enumerate(nb.cells):
        parts.append(f"<cell id=\"{cell_id(cell, i)}\" type=\"{cell.cell_type}\">\n{cell.source}\n</cell>")
        outputs = _outputs(cell)
        if outputs:
            parts.append(f"<outputs cell=\"{cell_id(cell, i)}\">\n{outputs}\n</outputs>")
    return "\n".join(parts)


def cell_id(cell: Any, index: int) -> str:
    return str(cell.get("id") or f"cell-{index}")


def _outputs(cell: Any) -> str:
    texts: list[str] = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            texts.append(str(out.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/plain" in data:
                texts.append(str(data["text/plain"]))
            for mime in data:
                if mime.startswith("image/"):
                    texts.append(f"[{mime} output]")
        elif kind == "error":
            texts.append(f"{out.get('ename')}: {out.get('evalue')}")
    text = "".join(t if t.endswith("\n") else t + "\n" for t in texts).rstrip("\n")
    return text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS] + "\n[… cut]"


def _find(nb: Any, wanted: str) -> int:
    for i, cell in enumerate(nb.cells):
        if cell_id(cell, i) == wanted:
            return i
    if wanted.isdigit() and int(wanted) < len(nb.cells):
        return int(wanted)
    known = ", ".join(cell_id(c, i) for i, c in enumerate(nb.cells)) or "none"
    raise NotebookError(f"no cell {wanted!r} in the notebook; its cells are: {known}")


def edit(nb: Any, args: dict[str, Any]) -> str:
    """Apply one edit to `nb`; returns what was done."""
    import nbformat

    mode = args.get("edit_mode") or "replace"
    wanted = args.get("cell_id")
    if mode == "insert":
        kind = args.get("cell_type")
        if kind not in ("code", "markdown"):
            raise NotebookError("inserting a cell needs cell_type 'code' or 'markdown'")
        at = _find(nb, str(wanted)) + 1 if wanted else 0
        make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        cell = make(args["new_source"])
        nb.cells.insert(at, cell)
        return f"inserted a {kind} cell {cell_id(cell, at)} at position {at}"
    if not wanted:
        raise NotebookError(f"{mode} needs a cell_id")
    at = _find(nb, str(wanted))
    if mode == "delete":
        del nb.cells[at]
        return f"deleted cell {wanted}"
    cell = nb.cells[at]
    kind = args.get("cell_type") or cell.cell_type
    if kind != cell.cell_type:
        make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        new = make(args["new_source"])
        new["id"] = cell.get("id") or new.get("id")
        nb.cells[at] = new
    else:
        cell.source = args["new_source"]
        if kind == "code":
            cell.outputs, cell.execution_count = [], None
    return f"replaced the source of cell {wanted}"


class NotebookEditTool(FromSpec, spec="NotebookEdit"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        import nbformat

        resolved = resolve_in_project(args["notebook_path"], ctx)
        refusal = refuse_outside(resolved, ctx)
        if refusal:
            return ToolOutput.error(refusal)
        path = resolved.path
        if path.suffix.lower() != ".ipynb":
            return ToolOutput.error(f"{path} is not a notebook (.ipynb); use Edit for other files.")
        try:
            st = os.stat(path)
        except OSError as err:
            return ToolOutput.error(f"Cannot open {path}: {err.strerror}")
        stale = require_fresh_read(ctx, path, st)
        if stale:
            return ToolOutput.error(stale)
        try:
            nb = load(path, ctx)
            done = edit(nb, args)
            nbformat.validate(nb)
        except NotebookError as err:
            return ToolOutput.error(str(err))
        except OSError as err:
            return ToolOutput.error(f"Cannot open {path}: {err.strerror or err}")
        except nbformat.ValidationError as err:
            return ToolOutput.error(f"The edit would make the notebook invalid: {err.message}")
        try:
            with dir_beneath(path, ctx) as dfd:
                new_st = atomic_write(path, nbformat.writes(nb) + "\n", dir_fd=dfd)
        except OSError as err:
            return ToolOutput.error(f"Cannot write {path}: {err.strerror or err}")
        record_read(ctx, path, new_st.st_mtime_ns)
        return ToolOutput(f"{path}: {done}.")
