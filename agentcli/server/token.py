"""The server's bearer token: random, in agentcli's home (never in a project), mode 0600, so `--attach` on the
same machine and user finds it by itself. The thin client reads it on every attached run, so reading it costs
only `os` (no pathlib: ~3 ms of a ~30 ms process, bench/RESULTS.md); making and checking it import the rest."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the thin client does not import typing for it
if TYPE_CHECKING:
    from pathlib import Path

ENV = "AGENTCLI_SERVER_TOKEN"


def token_path() -> str:
    """`agentcli.paths.home()`/server/token as a string ($AGENTCLI_HOME, else ~/.agentcli; a test holds the two
    to the same file)."""
    env = os.environ.get("AGENTCLI_HOME")
    home = os.path.expanduser(env) if env else os.path.join(os.path.expanduser("~"), ".agentcli")
    return os.path.join(home, "server", "token")


def token_file() -> Path:
    from pathlib import Path

    return Path(token_path())


def ensure_token() -> tuple[str, bool]:
    """The token, and whether it was just made (then the server prints it once)."""
    import secrets

    path = token_file()
    try:
        return read_token(str(path)), False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token, True


def read_token(path: str | None = None) -> str:
    """The stored token. A file others can read, or an empty one, is refused: it may have been replaced."""
    path = path or token_path()
    st = os.stat(path)
    if st.st_mode & 0o077:
        raise PermissionError(f"{path} is readable by others (mode {st.st_mode & 0o777:o}): chmod 600 it")
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    if not text:
        raise PermissionError(f"{path} is empty: delete it and start `agentcli serve` again")
    return text


def matches(given: str | None, token: str) -> bool:
    import hmac

    return given is not None and hmac.compare_digest(given.encode(), token.encode())
