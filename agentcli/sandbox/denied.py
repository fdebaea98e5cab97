"""Recognising a command the sandbox stopped, from what it printed: the kernel's words for a refused write
(read-only file system, permission denied, operation not permitted) or a network that is not there.

A heuristic by nature (a command may fail with these words on its own), so it only ever leads to an offer —
run it again outside the sandbox, with the user's approval — never to anything running by itself.
"""

from __future__ import annotations

import re

_FILES = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|Device or resource busy|EROFS|EACCES|EPERM"
)
_NETWORK = re.compile(
    r"Network is unreachable|Connection refused|Could not resolve host|Temporary failure in name resolution|"
    r"Name or service not known|No address associated with hostname|ENETUNREACH|ECONNREFUSED|EAI_AGAIN|"
    r"getaddrinfo failed|Failed to establish a new connection|Couldn't connect to server|Failed to connect to|"
    r"is not in sandbox_allowed_hosts"
)


def sandbox_denial(output: str, exit_code: int, *, network_off: bool) -> str | None:
    """The line that shows the sandbox stopped the command, or None."""
    if exit_code == 0:
        return None
    for line in output.splitlines():
        if _FILES.search(line) or (network_off and _NETWORK.search(line)):
            return line.strip()[:300]
    return None
