"""Where a tool's path really points, and whether that is inside the project.

Relative paths are taken from the shell's working directory (`ctx.shell_cwd`, else the project root), `~` is
expanded, and `..` and symlinks are resolved, so a symlink inside the project that points outside counts as
outside. The permission layer asks about outside paths; the tools refuse them unless the call was approved:
the loop runs an approved call inside `with outside_approved():` (a context variable, so it holds for that
call only, even when read-only calls run concurrently), or sets `ctx.allow_outside` (session-wide).

An approval covers the path as it was decided, not whatever the same words point at when the tool runs: a
link inside the project flipped between the policy's check and the tool's use must not turn an allowed read of a
project file into a read of `~/.ssh`. So the policy notes each path it decides (`note_decided`), and an outside
path is used only if the policy decided that same real path for the same words; a path a Read deny rule
protects is refused here too, however it was reached.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple

from agentcli.tools.base import ToolContext


class ResolvedPath(NamedTuple):
    """A real, absolute path and whether it lies under the project root or an added directory."""

    path: Path
    inside: bool
    raw: str = ""  # the path as the call gave it, for `refuse_outside` to find what the policy decided


def base_dir(ctx: ToolContext) -> Path:
    """The directory relative paths start from."""
    return ctx.shell_cwd or ctx.project_root


def allowed_roots(ctx: ToolContext) -> list[str]:
    """The real paths of the project root and the added directories."""
    return [os.path.realpath(r) for r in (ctx.project_root, *ctx.add_dirs)]


def _under(real: str, roots: list[str]) -> bool:
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def is_inside(path: str | os.PathLike[str], ctx: ToolContext) -> bool:
    """True when the real path of `path` (already absolute or relative to the shell cwd) is in the project."""
    return resolve_in_project(os.fspath(path), ctx).inside


def resolve_in_project(path: str, ctx: ToolContext) -> ResolvedPath:
    """Resolve `path` as tools see it: `~` expanded, relative to the shell cwd, `..` and symlinks followed."""
    if "\0" in path:
        # No real file has this name; answer "outside" so the policy asks and the tools refuse.
        return ResolvedPath(Path(path.replace("\0", "\\0")), False, path)
    expanded = os.path.expanduser(path)
    if not os.path.isabs(expanded):
        expanded = os.path.join(base_dir(ctx), expanded)
    real = os.path.realpath(expanded)
    return ResolvedPath(Path(real), _under(real, allowed_roots(ctx)), path)


def note_decided(ctx: ToolContext, raw: str, real: Path) -> None:
    """The policy decided a call naming `raw` (from the current shell cwd) by its real path `real`."""
    if ctx.decided_paths is None:
        ctx.decided_paths = {}
    ctx.decided_paths[(str(base_dir(ctx)), raw)] = str(real)


def _as_decided(resolved: ResolvedPath, ctx: ToolContext) -> bool:
    decided = ctx.decided_paths
    if decided is None or ctx.allow_outside:
        return True  # no policy notes its decisions here (a bare tool context): the approval is the caller's
    return bool(decided.get((str(base_dir(ctx)), resolved.raw)) == str(resolved.path))


_OUTSIDE_APPROVED: ContextVar[bool] = ContextVar("agentcli_outside_approved", default=False)


@contextmanager
def outside_approved(approved: bool = True) -> Iterator[None]:
    """Let the tool calls run in this block (this task and tasks it starts) touch paths outside the project."""
    token = _OUTSIDE_APPROVED.set(approved)
    try:
        yield
    finally:
        _OUTSIDE_APPROVED.reset(token)


def outside_allowed(ctx: ToolContext) -> bool:
    return _OUTSIDE_APPROVED.get() or ctx.allow_outside


def refuse_outside(resolved: ResolvedPath, ctx: ToolContext) -> str | None:
    """An error message when the tool must not touch `resolved`, else None."""
    if ctx.reads is not None and ctx.reads.read_denied(str(resolved.path)):
        return f"Access denied: a deny rule protects {resolved.path}."
    if resolved.inside:
        return None
    if outside_allowed(ctx):
        if _as_decided(resolved, ctx):
            return None
        return (f"Access denied: {resolved.raw} now leads to {resolved.path}, outside the project, which is not "
                "the path that was approved (a link changed since). Name the file you mean by its real path.")
    roots = ", ".join(str(r) for r in (ctx.project_root, *ctx.add_dirs))
    return (
        f"Access denied: {resolved.path} is outside the project ({roots}). "
        "Work with files inside the project, or ask the user to add the directory (--add-dir)."
    )


def display_path(path: Path, ctx: ToolContext) -> str:
    """`path` relative to the project root when inside it (shorter for people), else absolute."""
    try:
        return str(path.relative_to(os.path.realpath(ctx.project_root)))
    except ValueError:
        return str(path)
