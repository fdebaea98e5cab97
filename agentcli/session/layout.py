"""Where session files live: `$AGENTCLI_HOME/projects/<project-slug>/<session-id>.jsonl`.

Beside each session: `<id>.lock` (held while a process writes it) and `<id>.index` (its checkpoint
index); per project: `shadow.git/` (the checkpoint object store) and `.index.json` (the listing cache).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agentcli import paths
from agentcli.errors import SessionNotFoundError
from agentcli.ids import new_uuid

SUFFIX = ".jsonl"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# What may name a file of ours: one plain path component (no `/`, no leading `.`, no NUL), so that an id from a
# command line, a `/resume` argument or a session file's header can never point outside its directory.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def projects_root() -> Path:
    return paths.home() / "projects"


def sessions_dir(project_root: Path) -> Path:
    return projects_root() / paths.project_slug(project_root)


def session_file(directory: Path, session_id: str) -> Path:
    return directory / f"{checked_id(session_id)}{SUFFIX}"


def lock_file(directory: Path, session_id: str) -> Path:
    return directory / f"{checked_id(session_id)}.lock"


def checkpoint_index(directory: Path, session_id: str) -> Path:
    return directory / f"{checked_id(session_id)}.index"


def is_safe_id(text: object) -> bool:
    """Whether `text` can name a session's files (see `_SAFE_ID`); every session id agentcli makes can."""
    return isinstance(text, str) and _SAFE_ID.fullmatch(text) is not None


def checked_id(session_id: object) -> str:
    """`session_id` itself; SessionNotFoundError when it could not name a session file (a path, `..`, NUL)."""
    if not isinstance(session_id, str) or not is_safe_id(session_id):
        raise SessionNotFoundError(f"no session {str(session_id)[:80]!r}: not a session id",
                                   hint="see `agentcli sessions list`")
    return session_id


def session_ids(directory: Path) -> list[tuple[str, os.DirEntry[str]]]:
    """The sessions of a directory: (id, entry) for each `<id>.jsonl` whose name is a session id."""
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return []
    found = ((e.name[: -len(SUFFIX)], e) for e in entries if e.name.endswith(SUFFIX))
    return [(sid, e) for sid, e in found if is_safe_id(sid)]


def shadow_store(directory: Path) -> Path:
    return directory / "shadow.git"


def checkpoints_primed(store: Path, index: Path) -> bool:
    """Has a session's checkpoint index something to start from (its own index, or the project's last one)?
    Then its first checkpoint is cheap already and no warm-up runs (agentcli.session.checkpoint.ShadowGit.warm)."""
    return index.exists() or (store / "last-index").exists()


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
