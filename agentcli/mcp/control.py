"""The Claude Agent SDK's MCP control requests, answered from the session's MCP servers:

    mcp_status      → {"mcpServers": [...]} in Claude Code's shape (agentcli.mcp.status)
    mcp_reconnect   {"serverName"} → {}: the server restarts and is waited for (bounded by the connect timeout)
    mcp_toggle      {"serverName", "enabled"} → {}: disabled servers disconnect and offer no tools

A name that is not a server of this session is an error answer, as is a malformed request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agentcli.errors import UsageError

if TYPE_CHECKING:
    from agentcli.mcp.manager import McpManager

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


def handlers(manager_of: Callable[[], McpManager | None]) -> dict[str, Handler]:
    """subtype → handler, for a control channel; `manager_of()` is the session's MCP manager (None: no servers)."""

    async def status(req: dict[str, Any]) -> dict[str, Any]:
        from agentcli.mcp.status import mcp_status

        manager = manager_of()
        return mcp_status(manager) if manager is not None else {"mcpServers": []}

    async def reconnect(req: dict[str, Any]) -> dict[str, Any]:
        manager, name = _target(manager_of(), req)
        await manager.reconnect(name)
        return {}

    async def toggle(req: dict[str, Any]) -> dict[str, Any]:
        manager, name = _target(manager_of(), req)
        enabled = req.get("enabled")
        if not isinstance(enabled, bool):
            raise UsageError("mcp_toggle needs \"enabled\": true or false")
        await manager.set_enabled(name, enabled)
        return {}

    return {"mcp_status": status, "mcp_reconnect": reconnect, "mcp_toggle": toggle}


def _target(manager: McpManager | None, req: dict[str, Any]) -> tuple[McpManager, str]:
    name = req.get("serverName")
    if not isinstance(name, str) or not name:
        raise UsageError(f"{req.get('subtype')} needs \"serverName\"")
    if manager is None or name not in manager.connections:
        raise UsageError(f"MCP server {name!r} not found")
    return manager, name
