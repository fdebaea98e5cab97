"""`agentcli serve`'s process: check the bind, make or read the token, serve until SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Any

from agentcli.errors import UsageError
from agentcli.net.addr import is_loopback


def check_bind(host: str, allow_remote: bool) -> None:
    """A non-loopback bind needs the explicit opt-in: anyone who reaches the port would drive an agent with
    this user's files and keys, with only the token between."""
    if not is_loopback(host) and not allow_remote:
        raise UsageError(f"--host {host} is not a loopback address: the server would be reachable from other "
                         "machines", hint="add --allow-remote to mean it (the token is still required), or "
                                          "use --host 127.0.0.1")


def run_server(host: str, port: int, allow_remote: bool, flags: dict[str, Any]) -> int:
    check_bind(host, allow_remote)
    from agentcli.server.token import ensure_token, token_file

    token, made = ensure_token()
    if made:
        sys.stderr.write(f"agentcli serve: token (printed once; stored in {token_file()}, mode 0600):\n{token}\n")
    else:
        sys.stderr.write(f"agentcli serve: using the token in {token_file()}\n")
    return asyncio.run(_serve(host, port, token, flags))


def listening_socket(host: str, port: int) -> socket.socket:
    """The bound, listening socket. Made with proto IPPROTO_TCP (not `socket.create_server`'s 0): asyncio turns
    Nagle's algorithm off (TCP_NODELAY) only on the connections of such a socket, and with it on, every answer
    on a kept-alive connection waited ~40 ms for the client's delayed ACK (its body was a second small write)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as create_server does on POSIX
        sock.bind((host, port))
        sock.listen()
    except BaseException:
        sock.close()
        raise
    return sock


async def _serve(host: str, port: int, token: str, flags: dict[str, Any]) -> int:
    from pathlib import Path

    import uvicorn

    from agentcli.server.app import build_app
    from agentcli.server.hub import Hub
    from agentcli.server.stopping import Stopping
    from agentcli.server.warm import warm

    await warm(flags, Path.cwd())  # the first session costs what the next ones do

    hub = Hub(flags)
    config = uvicorn.Config(build_app(hub, token), log_level="warning", lifespan="off")
    server = Stopping(config, hub)
    sock = listening_socket(host, port)
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in host else bound[0]
    sys.stderr.write(f"agentcli serve: listening on http://{shown}:{bound[1]}\n")
    sys.stderr.flush()
    try:
        await server.serve(sockets=[sock])
    finally:
        await hub.aclose()
    return 0
