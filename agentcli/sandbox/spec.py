"""What a sandbox allows, independent of the mechanism: the mode, the writable roots, the files that configure
execution (kept read-only), the secrets (made unreadable) and the network.

Secret files inside the project are found once per session by a bounded walk: names matching `.env*` and
whatever the permission deny rules protect (`read_denied`, from agentcli.permissions). A secret created later
by the agent itself is not one the user is hiding from it.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli import paths
from agentcli.errors import ConfigError
from agentcli.record import record
from agentcli.sandbox.execconfig import GIT_DIR_ENTRIES, NAMES, git_followed

MODES = ("read-only", "workspace-write", "danger-full-access")
DEFAULT_MODE = "workspace-write"

if TYPE_CHECKING:
    from agentcli.settings.sections import Settings



# Inside every writable root: files and folders whose contents decide what runs later (agentcli.sandbox.execconfig,
# the list the permission policy shares). The sandbox keeps them read-only, at the root and, as found when the
# session starts, at any depth; `.git` itself is pinned so it cannot be renamed away and recreated.
PROTECTED = (*(f".git/{e}" for e in GIT_DIR_ENTRIES), *NAMES)
# Secrets by name, at any depth of a writable root.
SECRET_NAMES = (".env", ".env.*", ".envrc.local")
# Secrets in the home directory (and agentcli's own home, which holds keys and sessions).
HOME_SECRETS = (
    ".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
    ".config/gcloud", ".config/gh", ".password-store", ".claude", ".codex", ".env",
)
# Unix sockets reach past every namespace (a path, not a network address): a container engine's socket is a way
# out of any sandbox, a session bus or SSH agent acts for the user. Hidden whenever they exist; `SSH_AUTH_SOCK`
# and the runtime directory are added from the environment.
SYSTEM_SOCKETS = (
    "/var/run/docker.sock", "/run/docker.sock", "/run/containerd", "/run/podman", "/var/run/podman",
    "/run/dbus", "/var/run/dbus", "/run/user", "/run/systemd/private", "/run/snapd.socket",
    "/run/snapd-snap.socket", "/var/run/libvirt", "/run/libvirt",
)
# Folders the secret walk does not enter: big, generated, and not where a user keeps a secret.
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
                        ".tox", "target", ".pytest_cache"})
MAX_WALK_ENTRIES = 20_000
_NAMES = frozenset(NAMES)
_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAMES))


@record
class SandboxSpec:
    """`writable` are the project root and `--add-dir` directories (real paths); `network` whether the
    network is reachable at all; `allowed_hosts` reserved for a proxy (see docs/sandbox.md)."""

    mode: str
    project_root: Path
    writable: tuple[Path, ...]
    network: bool = False
    allowed_hosts: tuple[str, ...] = ()
    home: Path = field(default_factory=Path.home)
    agentcli_home: Path = field(default_factory=paths.home)
    # Host Unix sockets the user lets commands connect to (real paths; agentcli.sandbox.sockets).
    allowed_sockets: tuple[Path, ...] = ()
    # Whether a Read deny rule protects an absolute, normalized path, judged on the path alone (no I/O: the walk
    # below calls it for every entry of the project).
    read_denied: Callable[[str], bool] | None = None

    def protected(self) -> list[Path]:
        """Execution-configuring paths that exist now at every writable root, and those the root's repository
        makes git follow (its hooks directory, included files, common directory) inside a writable root."""
        return self._at_roots()[0]

    def absent_protected(self) -> list[Path]:
        return self._at_roots()[1]

    def _at_roots(self) -> tuple[list[Path], list[Path]]:
        """(present, absent): one listing of each root and of its `.git` rather than a stat per name (this runs
        twice for every command)."""
        present: list[Path] = []
        absent: list[Path] = []
        for root in self.writable:
            top, gitdir = _names(root), _names(root / ".git")
            names, entries = _candidates(root)
            for name, path in names:
                (present if name in top else absent).append(path)
            for entry, path in entries:
                (present if entry in gitdir else absent).append(path)
            if ".git" in top and not gitdir and not os.path.isdir(root / ".git"):
                present.append(root / ".git")  # a worktree's or submodule's gitdir pointer: repointing plants one
            if "config" in gitdir:
                for p in git_followed(root):
                    if any(_inside_root(p, r) for r in self.writable) and p not in present and p not in absent:
                        (present if os.path.lexists(p) else absent).append(p)
        return present, absent

    def hidden_outside(self) -> list[Path]:
        """Secret paths outside the writable roots that exist: the home list, agentcli's home, and every host
        Unix socket (agentcli.sandbox.sockets) but the allowed ones. A socket folder holding an allowed socket is
        not hidden whole: its other sockets are, one by one."""
        from agentcli.sandbox.sockets import host_sockets

        found = [self.home / n for n in HOME_SECRETS]
        found.append(self.agentcli_home)
        folders = [Path(p) for p in SYSTEM_SOCKETS]
        for var in ("SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"):
            value = os.environ.get(var, "").removeprefix("unix:path=").split(",")[0]
            if value.startswith("/"):
                folders.append(Path(value))
        allowed = {str(p) for p in self.allowed_sockets}
        for folder in folders:
            real = os.path.realpath(folder)
            if any(a == real or a.startswith(real.rstrip("/") + "/") for a in allowed):
                found += host_sockets(folder, self.writable, only=True)
            else:
                found.append(folder)
        found += host_sockets(self.home, self.writable)
        kept = [p for p in found if os.path.lexists(p) and os.path.realpath(p) not in allowed]
        return _outermost(kept)

    def hidden_inside(self) -> list[Path]:
        """Secret files and folders inside the writable roots (and the project, read-only or not)."""
        return self.walk()[0]

    def walk(self) -> tuple[list[Path], list[Path]]:
        """One bounded walk of the roots: the secrets in them, and the execution config below their top level
        (nested repositories' git directories and what they make git follow, `NAMES` at any depth)."""
        roots = list(dict.fromkeys((self.project_root, *self.writable)))
        out: list[Path] = []
        nested: list[Path] = []
        budget = [MAX_WALK_ENTRIES]
        for root in roots:
            _walk(root, self.read_denied, out, budget, nested)
        return out, [p for p in nested if any(_inside_root(p, r) for r in self.writable)]



@record
class Launch:
    """One command for a mechanism to wrap (`Mechanism.argv`): the session's spec, the effective mode, the
    command and where it runs (a real path), the secret paths to hide, host files it must read although they
    are outside the writable roots (`extra_ro`), the host socket of the network proxy (bubblewrap), and the
    execution config to keep read-only (`Sandbox.protected`)."""

    spec: SandboxSpec
    mode: str
    argv: tuple[str, ...]
    cwd: Path
    hidden: tuple[Path, ...] = ()
    extra_ro: tuple[str, ...] = ()
    proxy: str | None = None
    protected: tuple[Path, ...] = ()

@functools.cache
def _candidates(root: Path) -> tuple[tuple[tuple[str, Path], ...], tuple[tuple[str, Path], ...]]:
    """The execution-config paths of one root, made once (building Paths is most of the per-command cost)."""
    return (tuple((n, root / n) for n in NAMES), tuple((e, root / ".git" / e) for e in GIT_DIR_ENTRIES))


def _names(directory: Path) -> frozenset[str]:
    try:
        return frozenset(os.listdir(directory))
    except OSError:
        return frozenset()


def _outermost(paths: list[Path]) -> list[Path]:
    """`paths` without those inside another of them (hidden whole already), first occurrence kept."""
    reals = {os.path.realpath(p): p for p in reversed(paths)}
    out: list[Path] = []
    for real, p in reals.items():
        if not any(real.startswith(other.rstrip("/") + "/") for other in reals if other != real):
            out.append(p)
    return list(reversed(out))


def _inside_root(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _walk(root: Path, denied: Callable[[str], bool] | None, out: list[Path], budget: list[int],
          nested: list[Path]) -> None:
    stack = [str(root)]
    while stack and budget[0] > 0:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            budget[0] -= 1
            if d != str(root) and (e.name in _NAMES or e.name == ".git"):
                nested += _nested_config(Path(e.path))
            secret = _SECRET_NAME.match(e.name) is not None
            if not secret and denied is not None:
                try:
                    # The link bit comes with the listing (no lstat per entry): a link is judged by its target too.
                    secret = denied(e.path) or (e.is_symlink() and denied(os.path.realpath(e.path)))
                except Exception:  # a broken rule must not break every command; the policy still applies
                    secret = False
            if secret:
                out.append(Path(e.path))
            elif e.is_dir(follow_symlinks=False) and e.name not in _SKIP_DIRS:
                stack.append(e.path)


def _nested_config(path: Path) -> list[Path]:
    if path.name != ".git":
        return [path]
    if not path.is_dir() or path.is_symlink():
        return [path]  # a `.git` file can be repointed
    found = [path / e for e in GIT_DIR_ENTRIES if os.path.lexists(path / e)]
    return found + [p for p in git_followed(path.parent) if os.path.lexists(p)]


def resolve_mode(configured: str | None, preset_mode: str | None) -> str:
    mode = configured or preset_mode or DEFAULT_MODE
    if mode not in MODES:
        raise ConfigError(f"unknown sandbox mode {mode!r}", hint=f"use one of {', '.join(MODES)}",
                          code="bad_sandbox_mode")
    return mode


def spec_from_settings(
    settings: Settings, *, preset_mode: str | None = None, read_denied: Callable[[str], bool] | None = None
) -> SandboxSpec:
    from agentcli.sandbox import sockets

    root = Path(os.path.realpath(settings.project_root))
    dirs = tuple(Path(os.path.realpath(d)) for d in settings.permissions.add_dirs if os.path.isdir(d))
    return SandboxSpec(
        mode=resolve_mode(settings.sandbox.mode, preset_mode),
        project_root=root,
        writable=tuple(dict.fromkeys((root, *dirs))),
        network=settings.sandbox.network,
        allowed_hosts=settings.sandbox.allowed_hosts,
        allowed_sockets=sockets.allowed(settings.sandbox.allowed_sockets),
        agentcli_home=Path(os.path.realpath(paths.home())),
        read_denied=read_denied,
    )
