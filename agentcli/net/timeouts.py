"""The time limits of one HTTP route, below both the client (agentcli.net.http) and the httpx layer
(agentcli.net.mapping) that turns them into httpx's."""

from __future__ import annotations

from agentcli.record import record


@record
class Timeouts:
    """Seconds allowed to connect, to receive the response headers, and between two body reads."""

    connect: float = 10.0
    first_byte: float = 600.0
    read: float = 600.0
