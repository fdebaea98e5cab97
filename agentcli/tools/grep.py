"""Grep: search file contents with ripgrep (a pure-Python fallback runs only when rg is missing).

Files a permission deny rule protects (`.env`, keys: see agentcli.tools.ignore.read_denied) are never
searched or shown: rg gets `--glob '!…'` for the simple patterns, and its output is filtered by path.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.grepoptions import GrepOptions
from agentcli.tools.ignore import read_denied, read_denied_globs
from agentcli.tools.listing import RG_AUTO, find_rg
from agentcli.tools.paths import refuse_outside, resolve_in_project
from agentcli.tools.specs import MAX_FILES_SHOWN, FromSpec

# Lines collected from rg before it is stopped; files mode sorts them all by date, so it collects more.
MAX_LINES_COLLECTED = 20_000
_NUMBERED = re.compile(r"(\d+)([:-])(.*)", re.S)

def options_from_args(args: dict[str, Any]) -> GrepOptions:
    context = args.get("-C")
    return GrepOptions(
        pattern=args["pattern"],
        mode=args.get("output_mode") or "files_with_matches",
        ignore_case=bool(args.get("-i", False)),
        line_numbers=bool(args.get("-n", True)),
        after=int(args.get("-A", context) or 0),
        before=int(args.get("-B", context) or 0),
        globs=tuple((args.get("glob") or "").split()),
        file_type=args.get("type") or None,
        multiline=bool(args.get("multiline", False)),
    )


def rg_argv(rg: str, opts: GrepOptions, target: Path, excludes: tuple[str, ...] = (), nul: bool = False) -> list[str]:
    """`excludes`: name globs to leave out; `nul`: paths end with NUL (and content lines are numbered), so
    the output can be filtered by path (see `filter_rg`)."""
    argv = [rg, "--no-config", "--color=never", "--hidden", "--no-require-git", "--no-messages", "--glob=!.git"]
    if opts.mode == "files_with_matches":
        argv.append("--files-with-matches")
    elif opts.mode == "count":
        argv += ["--count", "--with-filename"]
    else:
        argv += ["--line-number" if opts.line_numbers or nul else "--no-line-number"]
        argv += ["--max-columns=500", "--max-columns-preview"]
        if opts.after:
            argv.append(f"--after-context={opts.after}")
        if opts.before:
            argv.append(f"--before-context={opts.before}")
    if opts.ignore_case:
        argv.append("--ignore-case")
    if opts.multiline:
        argv += ["--multiline", "--multiline-dotall"]
    argv += [f"--glob={g}" for g in opts.globs]
    argv += [f"--glob=!{g}" for g in excludes]  # after the user's globs: the later glob wins in rg
    if opts.file_type:
        argv.append(f"--type={opts.file_type}")
    if nul and opts.mode != "files_with_matches":
        argv.append("--null")
    return [*argv, "--regexp", opts.pattern, "--", str(target)]


def filter_rg(lines: list[str], opts: GrepOptions, denied: Callable[[str], bool]) -> list[str]:
    """Output of `rg_argv(..., nul=True)` over a directory → rg's usual lines, without denied files."""
    out: list[str] = []
    for line in lines:
        if opts.mode == "files_with_matches":
            if not denied(line):
                out.append(line)
            continue
        path, nul, rest = line.partition("\0")
        if not nul:
            if out and out[-1] != "--":
                out.append(line)  # `--` between context groups; one, and only between kept lines
            continue
        if denied(path):
            continue
        numbered = _NUMBERED.match(rest) if opts.mode == "content" else None
        if numbered is None:
            out.append(f"{path}:{rest}")
            continue
        number, sep, text = numbered.groups()
        out.append(f"{path}{sep}{number}{sep}{text}" if opts.line_numbers else f"{path}{sep}{text}")
    if out and out[-1] == "--":
        out.pop()
    return out


async def run_rg(argv: list[str], max_lines: int) -> tuple[int, list[str], bool, str]:
    """(exit code, output lines, whether rg was stopped early, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 20,
    )
    assert proc.stdout is not None and proc.stderr is not None
    err_task = asyncio.ensure_future(proc.stderr.read())
    lines: list[str] = []
    stopped = False
    try:
        while raw := await proc.stdout.readline():
            if len(lines) >= max_lines:
                stopped = True
                proc.kill()
                break
            lines.append(raw.decode("utf-8", errors="replace").rstrip("\n"))
        err = (await err_task).decode("utf-8", errors="replace")
        code = await proc.wait()
    except BaseException:
        if proc.returncode is None:
            proc.kill()
        err_task.cancel()
        await proc.wait()
        raise
    return code, lines, stopped, err


class GrepTool(FromSpec, spec="Grep"):
    def __init__(self, rg_path: str | None = RG_AUTO) -> None:
        self.rg_path = find_rg() if rg_path == RG_AUTO else rg_path

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        resolved = resolve_in_project(args.get("path") or ".", ctx)
        refusal = refuse_outside(resolved, ctx)
        if refusal:
            return ToolOutput.error(refusal)
        target = resolved.path
        if not target.exists():
            return ToolOutput.error(f"Path does not exist: {target}")
        denied = read_denied(ctx)
        if denied is not None and denied(str(target)):
            return ToolOutput.error(f"Permission to read {target} is denied by a rule.")
        opts = options_from_args(args)
        head_limit = int(args["head_limit"]) if args.get("head_limit") else None
        # Files are sorted by date before head_limit applies, so that mode collects them all first.
        budget = head_limit if head_limit and opts.mode != "files_with_matches" else MAX_LINES_COLLECTED
        excludes = read_denied_globs(ctx) if _under(target, ctx.project_root) else ()
        try:
            lines, stopped = await self._search(opts, target, budget, denied, excludes)
        except ValueError as e:
            return ToolOutput.error(f"Grep failed: {e}")
        return _format(lines, stopped, opts, head_limit, ctx)

    async def _search(
        self, opts: GrepOptions, target: Path, budget: int, denied: Callable[[str], bool] | None = None,
        excludes: tuple[str, ...] = (),
    ) -> tuple[list[str], bool]:
        """(output lines, whether the search stopped at `budget`); ValueError for a bad pattern or type.
        Files `denied` says may not be read are left out (a single-file target is checked by the caller)."""
        if self.rg_path:
            screen = denied is not None and target.is_dir()
            argv = rg_argv(self.rg_path, opts, target, excludes, nul=screen)
            try:
                code, lines, stopped, err = await run_rg(argv, budget)
            except OSError:
                self.rg_path = None  # a broken rg binary: use the fallback from now on
            else:
                # Exit 2 with results means some files could not be read; the matches are still good.
                if code not in (0, 1) and not stopped and not lines:
                    raise ValueError(err.strip() or f"rg exit code {code}")
                return (filter_rg(lines, opts, denied) if screen and denied else lines), stopped
        from agentcli.tools.grep_fallback import search  # only when rg is missing

        return await asyncio.to_thread(search, target, opts, budget, denied)


def _format(lines: list[str], stopped: bool, opts: GrepOptions, head_limit: int | None, ctx: ToolContext) -> ToolOutput:
    meta: dict[str, Any] = {"mode": opts.mode}
    if not lines:
        return ToolOutput("No matches found.", metadata=meta)
    notes: list[str] = []
    if opts.mode == "files_with_matches":
        lines = _newest_first(lines)
        meta["files"] = len(lines)
        shown = head_limit or MAX_FILES_SHOWN
        if len(lines) > shown:
            notes.append(f"(Showing {shown} of {len(lines)} files, most recently modified first.)")
            lines = lines[:shown]
    elif opts.mode == "count":
        lines.sort()
    if stopped and head_limit is None:
        notes.append("(Search stopped early: too many results. Narrow the pattern, path, glob or type.)")
    elif stopped:
        notes.append("(More results exist beyond head_limit.)")
    text = "\n".join(lines)
    if len(text) > ctx.max_output_chars:
        cut = text.rfind("\n", 0, ctx.max_output_chars)
        text = text[: max(cut, 0)]
        notes.append(f"(Output cut at {ctx.max_output_chars} characters; narrow the search or use head_limit.)")
    return ToolOutput(ctx.redact("\n".join([text, *notes])), metadata=meta)


def _under(path: Path, root: Path) -> bool:
    real = os.path.realpath(root)
    p = str(path)
    return p == real or p.startswith(real.rstrip("/") + "/")


def _newest_first(paths: list[str]) -> list[str]:
    def mtime(p: str) -> float:
        try:
            return os.stat(p).st_mtime
        except OSError:
            return 0.0

    return sorted(paths, key=lambda p: (-mtime(p), p))
