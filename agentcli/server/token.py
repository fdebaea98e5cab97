"""The server's bearer token: random, in agentcli's home (never in a project), mode 0600, so `--attach` on the
same machine and user finds it by itself. Imports nothing of the agent (the thin client reads it)."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

ENV = "AGENTCLI_SERVER_TOKEN"


def token_file() -> Path:
    from agentcli.paths import home

    return home() / "server" / "token"


def ensure_token() -> tuple[str, bool]:
    """The token, and whether it was just made (then the server prints it once)."""
    path = token_file()
    try:
        return read_token(path), False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token, True


def read_token(path: Path | None = None) -> str:
    """The stored token. A file others can read, or an empty one, is refused: it may have been replaced."""
    path = path or token_file()
    st = path.stat()
    if st.st_mode & 0o077:
        raise PermissionError(f"{path} is readable by others (mode {st.st_mode & 0o777:o}): chmod 600 it")
    text = path.read_text().strip()
    if not text:
        raise PermissionError(f"{path} is empty: delete it and start `agentcli serve` again")
    return text


def matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())
