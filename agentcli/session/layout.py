"""Where session files live: `$AGENTCLI_HOME/projects/<project-slug>/<session-id>.jsonl`.

Beside each session: `<id>.lock` (held while a process writes it) and `<id>.index` (its checkpoint
index); per project: `shadow.git/` (the checkpoint object store) and `.index.json` (the listing cache).
"""

from __future__ import annotations

import re
from pathlib import Path

from agentcli import paths
from agentcli.ids import new_uuid

SUFFIX = ".jsonl"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def projects_root() -> Path:
    return paths.home() / "projects"


def sessions_dir(project_root: Path) -> Path:
    return projects_root() / paths.project_slug(project_root)


def session_file(directory: Path, session_id: str) -> Path:
    return directory / f"{session_id}{SUFFIX}"


def lock_file(directory: Path, session_id: str) -> Path:
    return directory / f"{session_id}.lock"


def checkpoint_index(directory: Path, session_id: str) -> Path:
    return directory / f"{session_id}.index"


def shadow_store(directory: Path) -> Path:
    return directory / "shadow.git"


def new_session_id() -> str:
    return new_uuid()


def is_session_id(text: str) -> bool:
    return bool(_UUID.match(text.lower()))


def git_branch(root: Path) -> str | None:
    """The checked-out branch, read from `.git/HEAD` without running git (worktrees included)."""
    from agentcli.settings.projectfiles import read_inside

    dot_git = root / ".git"
    try:  # the repository wrote these: a FIFO or a huge file must not stall the session's start
        if dot_git.is_file():
            target = (read_inside(dot_git, None, 4096) or "").strip().removeprefix("gitdir:").strip()
            dot_git = (root / target).resolve()
        head = (read_inside(dot_git / "HEAD", None, 4096) or "").strip()
    except (OSError, ValueError, RuntimeError):
        return None
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return head[:12] or None
