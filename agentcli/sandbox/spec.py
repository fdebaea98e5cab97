"""What a sandbox allows, independent of the mechanism: the mode, the writable roots, the files that configure
execution (kept read-only), the secrets (made unreadable) and the network.

Secret files inside the project are found once per session by a bounded walk: names matching `.env*` and
whatever the permission deny rules protect (`read_denied`, from agentcli.permissions). A secret created later
by the agent itself is not one the user is hiding from it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli import paths
from agentcli.errors import ConfigError

if TYPE_CHECKING:
    from agentcli.settings.sections import Settings

# Inside every writable root: files and folders whose contents decide what runs later (git, agentcli, MCP,
# other agents, editors, direnv, commit hooks). The sandbox keeps them read-only; `.git` itself is pinned so it
# cannot be renamed away and recreated.
PROTECTED = (
    ".git/config",
    ".git/hooks",
    ".git/info",
    ".gitmodules",
    ".agentcli",
    ".mcp.json",
    ".claude",
    ".codex",
    ".envrc",
    ".vscode",
    ".idea",
    ".husky",
    ".pre-commit-config.yaml",
    ".cursor",
    ".gemini",
    ".gitconfig",
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
)
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
_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAMES))


@dataclass(frozen=True, slots=True)
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
    # Whether a Read deny rule protects an absolute, normalized path, judged on the path alone (no I/O: the walk
    # below calls it for every entry of the project).
    read_denied: Callable[[str], bool] | None = None

    def protected(self) -> list[Path]:
        """Execution-configuring paths that exist now, in every writable root."""
        return [root / name for root in self.writable for name in PROTECTED if os.path.lexists(root / name)]

    def absent_protected(self) -> list[Path]:
        return [root / name for root in self.writable for name in PROTECTED if not os.path.lexists(root / name)]

    def hidden_outside(self) -> list[Path]:
        """Secret paths outside the writable roots that exist: the home list, agentcli's home, and the Unix
        sockets that lead out of any sandbox."""
        found = [self.home / n for n in HOME_SECRETS]
        found.append(self.agentcli_home)
        found += [Path(p) for p in SYSTEM_SOCKETS]
        for var in ("SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"):
            value = os.environ.get(var, "").removeprefix("unix:path=").split(",")[0]
            if value.startswith("/"):
                found.append(Path(value))
        return [p for p in found if os.path.lexists(p)]

    def hidden_inside(self) -> list[Path]:
        """Secret files and folders inside the writable roots (and the project, read-only or not)."""
        roots = list(dict.fromkeys((self.project_root, *self.writable)))
        out: list[Path] = []
        budget = [MAX_WALK_ENTRIES]
        for root in roots:
            _walk(root, self.read_denied, out, budget)
        return out



@dataclass(frozen=True, slots=True)
class Launch:
    """One command for a mechanism to wrap (`Mechanism.argv`): the session's spec, the effective mode, the
    command and where it runs (a real path), the secret paths to hide, host files it must read although they
    are outside the writable roots (`extra_ro`), and the host socket of the network proxy (bubblewrap)."""

    spec: SandboxSpec
    mode: str
    argv: tuple[str, ...]
    cwd: Path
    hidden: tuple[Path, ...] = ()
    extra_ro: tuple[str, ...] = ()
    proxy: str | None = None

def _walk(root: Path, denied: Callable[[str], bool] | None, out: list[Path], budget: list[int]) -> None:
    stack = [str(root)]
    while stack and budget[0] > 0:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            budget[0] -= 1
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


MODES = ("read-only", "workspace-write", "danger-full-access")
DEFAULT_MODE = "workspace-write"


def resolve_mode(configured: str | None, preset_mode: str | None) -> str:
    mode = configured or preset_mode or DEFAULT_MODE
    if mode not in MODES:
        raise ConfigError(f"unknown sandbox mode {mode!r}", hint=f"use one of {', '.join(MODES)}",
                          code="bad_sandbox_mode")
    return mode


def spec_from_settings(
    settings: Settings, *, preset_mode: str | None = None, read_denied: Callable[[str], bool] | None = None
) -> SandboxSpec:
    root = Path(os.path.realpath(settings.project_root))
    dirs = tuple(Path(os.path.realpath(d)) for d in settings.permissions.add_dirs if os.path.isdir(d))
    return SandboxSpec(
        mode=resolve_mode(settings.sandbox.mode, preset_mode),
        project_root=root,
        writable=tuple(dict.fromkeys((root, *dirs))),
        network=settings.sandbox.network,
        allowed_hosts=settings.sandbox.allowed_hosts,
        agentcli_home=Path(os.path.realpath(paths.home())),
        read_denied=read_denied,
    )
