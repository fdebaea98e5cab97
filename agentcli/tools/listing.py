"""The files under a directory that a developer would consider part of the project.

In a git work tree whose configuration names no program (agentcli.proc.gitsafe): `git ls-files -co
--exclude-standard` (tracked plus untracked-but-not-ignored). Else the
`rg --files` binary (which reads .gitignore files too). Else a pure-Python .gitignore-aware walk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentcli.proc.gitsafe import git_argv, git_env
from agentcli.proc.groups import find_rg, run_capture

__all__ = ["RG_AUTO", "find_rg", "in_git_worktree", "list_files"]

RG_AUTO = "auto"


def in_git_worktree(path: Path) -> bool:
    return any((d / ".git").exists() for d in (path, *path.parents))


async def list_files(base: Path, rg: str | None) -> list[str]:
    """Relative `/`-separated paths of the project files under `base`."""
    argv = git_argv(base, "ls-files", "-co", "--exclude-standard", "-z") if in_git_worktree(base) else None
    if argv is not None:
        try:
            code, out, _ = await run_capture(argv, base, env=git_env())
        except OSError:
            code, out = 1, b""
        if code == 0 and out:
            names = out.decode("utf-8", errors="surrogateescape").split("\0")
            return [n for n in names if n and not n.endswith("/")]
    if rg:
        try:
            code, out, _ = await run_capture(
                [rg, "--files", "--hidden", "--no-require-git", "--glob", "!.git", "--no-config"], base
            )
        except OSError:
            code, out = 2, b""
        if code in (0, 1):
            return [n for n in out.decode("utf-8", errors="surrogateescape").split("\n") if n]
    from agentcli.tools.ignore import walk_files  # only needed without git and rg

    return await asyncio.to_thread(lambda: list(walk_files(str(base))))
