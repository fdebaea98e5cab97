"""Recognising a command the sandbox stopped, from what it printed: the kernel's words for a refused write
(read-only file system, permission denied, operation not permitted) or a network that is not there.

A heuristic by nature (a command may fail with these words on its own), so it only ever leads to an offer —
run it again outside the sandbox, with the user's approval — never to anything running by itself.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_FILES = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|Device or resource busy|EROFS|EACCES|EPERM"
)
_NETWORK = re.compile(
    r"Network is unreachable|Connection refused|Could not resolve host|Temporary failure in name resolution|"
    r"Name or service not known|No address associated with hostname|ENETUNREACH|ECONNREFUSED|EAI_AGAIN|"
    r"getaddrinfo failed|Failed to establish a new connection|Couldn't connect to server|Failed to connect to|"
    r"is not in sandbox_allowed_hosts"
)


# The sandbox's private /tmp covers the host's: a path there outside the writable roots looks absent.
_MISSING = re.compile(r"(/tmp/[^\s:'\"]+)[^\n]*No such file or directory")


def sandbox_denial(
    output: str, exit_code: int, *, network_off: bool, writable: tuple[Path, ...] = ()
) -> str | None:
    """The line that shows the sandbox stopped the command, or None."""
    if exit_code == 0:
        return None
    for line in output.splitlines():
        if _FILES.search(line) or (network_off and _NETWORK.search(line)) or _hidden_tmp(line, writable):
            return line.strip()[:300]
    return None


def _hidden_tmp(line: str, writable: tuple[Path, ...]) -> bool:
    """A "No such file or directory" for a host /tmp path whose folder exists out here, outside the writable
    roots: the command could not see it because of the sandbox, not because it is not there."""
    m = _MISSING.search(line)
    if m is None:
        return False
    path = Path(m.group(1))
    if any(path == r or r in path.parents for r in writable):
        return False
    return path.parent != Path("/tmp") and os.path.isdir(path.parent)
