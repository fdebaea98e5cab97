"""Execution config: the files whose contents decide what a later program runs on its own — git (its config,
hooks, the directories it follows), hook runners, agents, editors, dev containers, tool managers, the shell's
start-up files. One list, read by the permission policy (writing one asks in every mode) and by the sandbox
(read-only inside it), at every depth of the project.

What git itself follows from a repository's config is added per repository (`git_followed`): the directory
`core.hooksPath` names, the files `include.path` and `includeIf.*.path` read, and the common directory a
`commondir` file points at. This module reads files only; it never runs git.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.settings.projectfiles import Unreadable, read_text_regular

# A repository's git config is read without blocking (it can be a FIFO) and only so far (git's own configs are far
# smaller): what is beyond this is not followed.
MAX_GIT_FILE = 16 * 1024 * 1024

# A file or folder of this name, at any depth, configures what runs later. Hook runners: husky, pre-commit,
# lefthook, simple-git-hooks, overcommit, and the folders hooks are commonly kept in for `core.hooksPath`.
NAMES = (
    ".gitmodules", ".gitconfig", ".agentcli", ".mcp.json", ".claude", ".codex", ".cursor", ".gemini", ".envrc",
    ".vscode", ".idea", ".devcontainer", ".devcontainer.json",
    ".husky", ".pre-commit-config.yaml", ".githooks", ".git-hooks", ".lefthook", "lefthook.yml", "lefthook.yaml",
    ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yml",
    ".lefthook-local.yaml", ".simple-git-hooks.json", ".simple-git-hooks.js", ".simple-git-hooks.cjs",
    ".simple-git-hooks.mjs", "simple-git-hooks.json", "simple-git-hooks.js", "simple-git-hooks.cjs",
    ".overcommit.yml",
    "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise",
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
    ".zlogin", ".zlogout",
)
# Inside a git directory (`.git`, or where a `.git` file points): what git reads to decide what to run. The rest
# (objects, refs, the index) is the repository's data, written by every commit.
GIT_DIR_ENTRIES = ("config", "config.worktree", "hooks", "info", "commondir")
# Config keys naming a path git follows (lower case; `*` a subsection).
_FOLLOWED_KEYS = frozenset({"core.hookspath", "include.path", "includeif.*.path"})


def policy_patterns() -> tuple[str, ...]:
    """The permission policy's patterns (a name without `/` matches at any depth): the whole git directory (the
    tools never need to edit it), and every name above."""
    return (".git", *NAMES)


def at_root(root: Path) -> list[Path]:
    """Every execution-config path of one root, existing or not: `NAMES` and the git directory's entries."""
    return [root / ".git" / e for e in GIT_DIR_ENTRIES] + [root / n for n in NAMES]


def git_followed(worktree: Path) -> list[Path]:
    """Paths the repository at `worktree` (its `.git` folder) makes git follow: the hooks directory of
    `core.hooksPath`, included config files, and the common directory's config and hooks (`commondir`)."""
    gitdir = worktree / ".git"
    if not gitdir.is_dir() or gitdir.is_symlink():
        return []
    out: list[Path] = []
    dirs = [gitdir]
    try:
        common = (read_text_regular(gitdir / "commondir", MAX_GIT_FILE) or "").strip()
    except Unreadable:
        common = ""
    if common:
        target = Path(os.path.normpath(gitdir / common))
        dirs.append(target)
        out += [target / e for e in GIT_DIR_ENTRIES]
    for d in dirs:
        for name in ("config", "config.worktree"):
            out += _config_paths(d / name, worktree)
    return out


def _config_paths(config: Path, worktree: Path, depth: int = 0) -> list[Path]:
    from agentcli.permissions.gitcheck import config_entries

    try:
        text = read_text_regular(config, MAX_GIT_FILE)
    except Unreadable:
        return []  # a FIFO, a device, too big: git itself cannot use it either
    if text is None:
        return []
    entries = config_entries(text)
    if isinstance(entries, str):
        return []
    out: list[Path] = []
    for key, value in entries:
        if key not in _FOLLOWED_KEYS or not value:
            continue
        # git: a relative hooksPath is taken from the working tree's top, an include from the including file.
        base = worktree if key == "core.hookspath" else config.parent
        target = Path(os.path.normpath(base / os.path.expanduser(value)))
        out.append(target)
        if key != "core.hookspath" and depth < 4:
            out += _config_paths(target, worktree, depth + 1)
    return out
