"""git run in the user's repository for agentcli's own purposes (listing the project's files), without letting
the repository run anything.

A cloned repository writes its own `.git/config` (or points a `.git` file at another git directory), and git
runs programs it names even for plain listing: `git ls-files` starts `core.fsmonitor`. So agentcli runs git
there only when `agentcli.permissions.gitcheck.repo_problem` finds a configuration naming no program (else the
caller falls back to ripgrep or a walk), and then with command-line overrides, which git reads after every
config file, as a second wall.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Read last, so they win over anything an included or conditional config file says.
OVERRIDES = (
    "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", f"core.hooksPath={os.devnull}",
    "-c", "core.pager=cat", "-c", "diff.external=", "-c", "core.sshCommand=false", "-c", "protocol.allow=never",
)


def git_argv(cwd: Path, *args: str) -> list[str] | None:
    """`git … args` to run in `cwd`, or None when the repository there configures a program git could run."""
    from agentcli.permissions.gitcheck import repo_problem
    from agentcli.proc.groups import which

    exe = which("git")  # an absolute path: a bare "git" with a relative PATH entry could be the repository's
    try:
        if exe is None or repo_problem(str(cwd)) is not None:
            return None
    except (OSError, ValueError):
        return None
    return [exe, "--no-pager", *OVERRIDES, *args]


def git_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without any `GIT_*` variable (they point git at another repository, index, config or
    program; one not known to be harmless is dropped), with the system config left out (the user's stays),
    no credential prompt and no optional index locks. Also what the checkpoints' shadow repository runs with."""
    env = {k: v for k, v in (os.environ if environ is None else environ).items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return env
