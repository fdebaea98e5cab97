"""Run one command so that nothing it starts outlives it, where no PID namespace holds it (Linux):
`python -I -S reaper.py -- ARGV…` (`contained(argv)` builds that line).

The reaper makes itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`): whatever the command leaves behind —
`setsid`, `nohup … &`, a double fork, `disown`, a new process group — is re-parented to the reaper instead of to
init, so it stays below it. When the command's own process ends, the reaper SIGKILLs everything still below it
(a child that ignores SIGTERM included), reaps it, and exits with the command's status; a command killed by a
signal makes the reaper die of the same signal, so the caller sees what it would have seen. SIGTERM, SIGINT and
SIGHUP do not end the reaper early (that would free the orphans): they reach the command through its process
group, and the reaper cleans up once it ends. SIGKILL of the reaper's group or tree (a timeout, KillShell) is
handled by the caller, which finds every descendant under the reaper (agentcli.proc.groups.kill_tree). If
agentcli itself dies, the reaper's parent-death signal kills the whole tree (as bubblewrap's `--die-with-parent`).

Out of reach: a process handed to another daemon (`at`, `systemd-run --user`, D-Bus activation, a `tmux` server
already running) was never a descendant; a command that SIGKILLs the reaper itself (`kill -9 $PPID`) frees its
orphans to init. Only the kernel sandbox's PID namespace holds those.

The script imports nothing from agentcli and little else, and starts with `-I -S`: ~11 ms CPU over a bare Python
start (ctypes, signal), ~22 ms in all per command on this 2-core machine under load (measured 2026-11-28).
agentcli.sandbox.none runs every command through it when the sandbox gives no PID namespace (bubblewrap absent
or refused by the system); with bubblewrap (~2 ms CPU) it is not used.
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ORPHANED = signal.SIGUSR1  # our parent-death signal
_HELD = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def contained(argv: list[str]) -> list[str]:
    """The command line that runs `argv` under the reaper, with the Python running agentcli."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "--", *argv]


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process a child subreaper; False where the kernel or libc does not offer it."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def _kill_all(*_: object) -> None:
    """agentcli died (our parent-death signal): nothing below us may go on, as bubblewrap's `--die-with-parent`.
    The command's end follows, then the sweep."""
    _kill(descendants(os.getpid()))


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (zombies included), parents before children, from one pass over /proc (empty
    where there is none). Here, not in agentcli.proc.groups, which uses it too: this script runs alone (`-I -S`)."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    out: list[int] = []
    todo = list(children.get(pid, ()))
    while todo:
        kid = todo.pop(0)
        out.append(kid)
        todo.extend(children.get(kid, ()))
    return out


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:  # noqa: SIM105 — contextlib would double the reaper's start-up (functools, collections)
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def sweep() -> None:
    """SIGKILL every process below us and reap them all; returns when we have no children left. The whole tree
    is killed at once (a process with SIGKILL pending cannot fork), then reaped; whatever was forked between
    the look and the kill is re-parented to us and killed on the next pass."""
    me = os.getpid()
    try:
        os.waitpid(-1, os.WNOHANG)  # reaps one that has ended, if any
    except ChildProcessError:
        return  # no child, so nothing below us (we are a subreaper): the usual case, without reading /proc
    while True:
        _kill(descendants(me))
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        while True:  # reap what else has ended without looking at /proc again
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                return


def _original_env() -> dict[str, str]:
    """The environment we were started with. Python may have added to `os.environ` (PEP 538's LC_CTYPE in a C
    locale); the command gets exactly what agentcli gave it."""
    try:
        with open("/proc/self/environ", "rb") as f:
            data = f.read()
    except OSError:
        return dict(os.environ)
    pairs = (entry.split(b"=", 1) for entry in data.split(b"\0") if b"=" in entry)
    return {os.fsdecode(k): os.fsdecode(v) for k, v in pairs}


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the command may have dumped core; we must not
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        sys.stderr.write("usage: reaper.py -- COMMAND [ARG…]\n")
        os._exit(2)
    parent = os.getppid()
    become_subreaper()
    for sig in _HELD:  # a handler, not SIG_IGN: the command must not inherit an ignored signal
        signal.signal(sig, lambda *_: None)
    signal.signal(ORPHANED, _kill_all)
    _prctl(PR_SET_PDEATHSIG, ORPHANED)
    if os.getppid() != parent:  # agentcli died before we asked to be told
        os._exit(1)
    try:
        pid = os.posix_spawnp(argv[0], argv, _original_env())
    except OSError as err:
        sys.stderr.write(f"{argv[0]}: {err.strerror}\n")
        os._exit(127 if isinstance(err, FileNotFoundError) else 126)
    while True:
        done, status = os.waitpid(-1, 0)  # reaps orphans as they end, too
        if done == pid:
            break
    sweep()
    _exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
