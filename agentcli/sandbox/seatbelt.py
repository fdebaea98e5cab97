"""macOS: a Seatbelt profile (the SBPL language `sandbox-exec -p` takes), generated as text.

It cannot run on Linux, so tests check the text. Seatbelt cannot kill a detached process tree; process
lifetime on macOS rests on the process group (see docs/sandbox.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.sandbox.spec import PROTECTED, SECRET_NAMES, Launch, SandboxSpec

SANDBOX_EXEC = "/usr/bin/sandbox-exec"

_BASE = """\
(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow file-ioctl)
(allow file-read*)
(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))
"""


def quote(path: str | Path) -> str:
    """An SBPL string literal: backslashes and quotes escaped, nothing else interpreted."""
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _regex_name(root: Path, pattern: str) -> str:
    """An SBPL regex for a file name glob (`.env.*`) at any depth below `root`."""
    import re

    body = re.escape(pattern).replace(r"\*", "[^/]*")
    text = f"^{re.escape(str(root))}/(.*/)?{body}$".replace('"', '\\"')
    return f'(regex #"{text}")'


def profile(spec: SandboxSpec, mode: str, *, hidden: list[Path], tmpdir: str) -> str:
    """The whole profile for one command. Later rules win in SBPL, so denials come last."""
    lines = [_BASE.rstrip("\n")]
    if mode == "danger-full-access":
        return "(version 1)\n(allow default)\n"
    writable = [tmpdir]
    if mode == "workspace-write":
        writable += [str(r) for r in spec.writable]
    lines.append("(allow file-write* " + " ".join(f"(subpath {quote(os.path.realpath(w))})" for w in writable) + ")")
    if mode == "workspace-write":
        denied = [f"(subpath {quote(r / name)})" for r in spec.writable for name in PROTECTED]
        lines.append("(deny file-write* " + " ".join(denied) + ")")
    secrets = [f"(subpath {quote(os.path.realpath(p))})" for p in hidden]
    secrets += [_regex_name(r, n) for r in dict.fromkeys((spec.project_root, *spec.writable)) for n in SECRET_NAMES]
    lines.append("(deny file-read* file-write* " + " ".join(secrets) + ")")
    if spec.network:
        lines.append("(allow network*)")
    else:
        # Unix sockets: the project's own, and the host's only on the allow list (agentcli.sandbox.sockets): a
        # host service's socket acts for the user.
        own = " ".join(f"(subpath {quote(os.path.realpath(r))})" for r in spec.writable)
        allowed = "".join(f" (path-literal {quote(p)})" for p in spec.allowed_sockets)
        lines.append(f"(allow network-bind network-inbound (local unix-socket {own}))")
        lines.append(f"(allow network-outbound (remote unix-socket {own}{allowed}))")
    return "\n".join(lines) + "\n"


class Seatbelt:
    name = "seatbelt"

    def argv(self, launch: Launch) -> list[str]:
        tmpdir = os.environ.get("TMPDIR") or "/tmp"
        text = profile(launch.spec, launch.mode, hidden=list(launch.hidden), tmpdir=tmpdir)
        return [SANDBOX_EXEC, "-p", text, "--", *launch.argv]
