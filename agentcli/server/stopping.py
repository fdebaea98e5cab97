"""uvicorn's server for `agentcli serve`, which ends every session as soon as it stops accepting connections
(SIGTERM, SIGINT): their turns stop (each session file stays valid and resumable) and their event streams end.
uvicorn's own graceful shutdown waits for open responses to finish, and an event stream finishes only when its
session ends: with a client watching an idle session, the server would never exit."""

from __future__ import annotations

import socket

import uvicorn

from agentcli.server.hub import Hub


class Stopping(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, hub: Hub) -> None:
        super().__init__(config)
        self.hub = hub

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:  # no new session can be opened meanwhile
            server.close()
        await self.hub.aclose()
        await super().shutdown(sockets=sockets)
