"""Host Unix sockets: none is reachable from the sandbox unless the user allows it (`sandbox_allowed_sockets`).

A Unix socket is a path, not a network address, so a new network namespace does not cut it off: a command that
can name a host service's socket can make it act (a container engine runs anything as root, a session bus or an
agent acts for the user, a database answers). Abstract sockets are cut off with the network (they live in the
network namespace); path sockets must be covered one by one. So the places host services keep sockets are walked
once per session (bounded, no link followed) and every socket found there is made unreachable (the mechanism
covers it with an unusable node), as are the well-known socket folders whole (`SYSTEM_SOCKETS`). The project's
own sockets (in a writable root) and the private /tmp are the command's own. An allowed socket is put back over
whatever hides it. `agentcli doctor` shows how to allow one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Where host services keep their sockets (the home directory is added from the spec). /tmp is private inside
# the sandbox and /dev fresh, so neither is walked.
PLACES = ("/run", "/var/run", "/var/tmp", "/var/lib", "/var/spool", "/srv", "/mnt/wsl")
# Folders under those places that hold no socket worth the time (images, caches, logs, packages).
_SKIP = frozenset({"node_modules", ".git", "docker", "containers", "containerd", "snapd", "flatpak", "apt", "dpkg",
                   "cache", ".cache", "log", "overlay2", "image", "volumes", ".venv", "venv", "site-packages",
                   ".npm", ".cargo", ".rustup", "go", ".pyenv", ".nvm", ".m2", ".gradle", ".vscode-server",
                   ".mozilla", ".thunderbird", "Trash"})
MAX_ENTRIES = 20_000  # per place
MAX_HOME_ENTRIES = 3_000  # per dot-folder of the home directory
HOW_TO_ALLOW = ('allow one with sandbox_allowed_sockets = ["/path/to/socket"] in ~/.agentcli/config.toml '
                '(an ssh-agent: "$SSH_AUTH_SOCK"; a database: its socket, e.g. "/run/postgresql/.s.PGSQL.5432")')


def host_sockets(home: Path, own: tuple[Path, ...], *, only: bool = False) -> list[Path]:
    """Every Unix socket under the host's socket places and `home` (`only`: under `home` alone), except under
    `own` (the writable roots). In the home directory only its dot-folders are walked (where services keep
    sockets: ~/.docker/run, ~/.colima, ~/.orbstack …), not the user's own files."""
    skip = {os.path.realpath(p) for p in own}
    found: list[Path] = []
    if not only:
        for place in PLACES:
            found += _walk(place, skip, depth=8, budget=MAX_ENTRIES)
    try:
        tops = [e.path for e in os.scandir(home) if e.name.startswith(".") and e.name not in _SKIP
                and e.is_dir(follow_symlinks=False)] if not only else [str(home)]
    except OSError:
        return found
    for top in tops:
        found += _walk(top, skip, depth=5, budget=MAX_HOME_ENTRIES)
    return found


def _walk(top: str, skip: set[str], *, depth: int, budget: int) -> list[Path]:
    found: list[Path] = []
    stack = [(top, 0)]
    seen: set[str] = set()
    while stack and budget > 0:
        d, level = stack.pop()
        real = os.path.realpath(d)
        if real in seen or real in skip:
            continue
        seen.add(real)
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            budget -= 1
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in _SKIP and level < depth:
                        stack.append((e.path, level + 1))
                elif not e.is_file(follow_symlinks=False) and not e.is_symlink() \
                        and stat.S_ISSOCK(e.stat(follow_symlinks=False).st_mode):
                    found.append(Path(e.path))
            except OSError:
                continue
    return found


def allowed(paths: tuple[str, ...]) -> tuple[Path, ...]:
    """The allowed sockets as real paths (`~` and `$VARS` expanded); what does not exist now is left out."""
    out: list[Path] = []
    for p in paths:
        expanded = os.path.expandvars(os.path.expanduser(p))
        if expanded.startswith("/") and os.path.exists(expanded):
            out.append(Path(os.path.realpath(expanded)))
    return tuple(dict.fromkeys(out))
