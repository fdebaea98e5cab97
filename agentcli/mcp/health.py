"""`agentcli mcp list`'s health check, as `claude mcp list` does it: every server that would start in this project
is connected once (in parallel, each bounded by MCP_TIMEOUT, under the sandbox its settings ask for), its state
read, and the connection closed. Servers withheld until the project is trusted are not started.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentcli.mcp.config import McpConfig

if TYPE_CHECKING:
    from agentcli.settings.config import Settings


@dataclass(frozen=True, slots=True)
class Health:
    status: str  # connected | failed | pending
    detail: str  # "N tools", or why it failed


async def check(config: McpConfig, settings: Settings) -> dict[str, Health]:
    """name → Health for each server of `config.servers`."""
    if not config.servers:
        return {}
    from agentcli.mcp.manager import McpManager

    wanted = settings.mcp_sandbox or any(s.sandbox for s in config.servers.values())
    wrap = None
    if wanted:
        from agentcli.sandbox import wrap_command

        wrap = functools.partial(wrap_command, settings)
    checked = McpConfig(servers=dict(config.servers))
    manager = McpManager(checked, settings.cwd, grace_s=None, connect_timeout_s=settings.mcp_connect_timeout_s,
                         wrap=wrap, sandbox_all=settings.mcp_sandbox)
    manager.start()
    try:
        await manager.refresh()
        out: dict[str, Health] = {}
        for name, status in manager.servers():
            conn = manager.connections.get(name)
            if conn is not None and status == "connected":
                out[name] = Health(status, f"{len(conn.tools)} tools")
                continue
            error = (conn.error if conn is not None else None) or "not started"
            tail = conn.stderr_tail() if conn is not None else ""
            out[name] = Health(status, f"{error}; its stderr ended: {tail}" if tail else error)
        return out
    finally:
        await manager.aclose()
