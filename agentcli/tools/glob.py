"""Glob: find files by name pattern, newest first, honouring .gitignore."""

from __future__ import annotations

import os
from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.globmatch import BadGlob, compile_glob, has_magic
from agentcli.tools.ignore import read_denied
from agentcli.tools.listing import RG_AUTO, find_rg, list_files
from agentcli.tools.paths import refuse_outside, resolve_in_project
from agentcli.tools.specs import GLOB_MAX_RESULTS as MAX_RESULTS
from agentcli.tools.specs import FromSpec


def split_absolute(pattern: str) -> tuple[str, str]:
    """An absolute pattern `/a/b/**/*.py` → (`/a/b`, `**/*.py`): the longest directory without wildcards."""
    parts = pattern.split("/")
    n = 1
    while n < len(parts) - 1 and not has_magic(parts[n]):
        n += 1
    return "/".join(parts[:n]) or "/", "/".join(parts[n:])


class GlobTool(FromSpec, spec="Glob"):
    def __init__(self, rg_path: str | None = RG_AUTO) -> None:
        self.rg_path = find_rg() if rg_path == RG_AUTO else rg_path

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        pattern: str = args["pattern"]
        where: str = args.get("path") or "."
        if os.path.isabs(pattern):
            where, pattern = split_absolute(pattern)
        pattern = pattern.removeprefix("./") or "*"
        resolved = resolve_in_project(where, ctx)
        refusal = refuse_outside(resolved, ctx)
        if refusal:
            return ToolOutput.error(refusal)
        base = resolved.path
        if not base.is_dir():
            return ToolOutput.error(f"{base} is not a directory. Give a directory as `path`.")
        try:
            regex = compile_glob(pattern)
        except BadGlob as e:
            return ToolOutput.error(f"{e}. Use *, ?, [...], ** and {{a,b}}.")
        files = [f for f in await list_files(base, self.rg_path) if regex.match(f)]
        denied = read_denied(ctx)
        if denied is not None:  # names of files a deny rule protects (`.env`) are not shown either
            files = [f for f in files if not denied(os.path.join(base, f))]
        dated: list[tuple[float, str]] = []
        for f in files:
            full = os.path.join(base, f)
            try:
                dated.append((os.stat(full).st_mtime, full))
            except OSError:
                continue
        dated.sort(key=lambda t: (-t[0], t[1]))
        meta = {"count": len(dated), "base": str(base)}
        if not dated:
            return ToolOutput(f"No files found matching {args['pattern']!r} in {base}.", metadata=meta)
        shown = [p for _, p in dated[:MAX_RESULTS]]
        text = "\n".join(shown)
        if len(dated) > MAX_RESULTS:
            text += (
                f"\n(Showing the {MAX_RESULTS} most recently modified of {len(dated)} matches. "
                "Use a narrower pattern or path to see others.)"
            )
        return ToolOutput(ctx.redact(text), metadata=meta)
