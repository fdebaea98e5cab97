"""The Claude Agent SDK's MCP control requests, answered from the session's MCP servers:

    initialize      its `sdkMcpServers` (names; the TypeScript SDK announces its in-process servers so, the
                    Python SDK in `--mcp-config`) become `sdk` servers: `declare_sdk_servers`

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
    from agentcli.core.loop import Agent
    from agentcli.core.parts import McpServers
    from agentcli.mcp.manager import McpManager
    from agentcli.mcp.sdk_transport import SdkRequest
    from agentcli.settings.config import Settings

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


def handlers(servers_of: Callable[[], McpServers | None]) -> dict[str, Handler]:
    """subtype → handler, for a control channel; `servers_of()` is the session's MCP servers (`Agent.mcp`; None:
    no servers)."""

    async def status(req: dict[str, Any]) -> dict[str, Any]:
        from agentcli.mcp.status import mcp_status

        manager = _manager(servers_of())
        return mcp_status(manager) if manager is not None else {"mcpServers": []}

    async def reconnect(req: dict[str, Any]) -> dict[str, Any]:
        manager, name = _target(_manager(servers_of()), req)
        await manager.reconnect(name)
        return {}

    async def toggle(req: dict[str, Any]) -> dict[str, Any]:
        manager, name = _target(_manager(servers_of()), req)
        enabled = req.get("enabled")
        if not isinstance(enabled, bool):
            raise UsageError("mcp_toggle needs \"enabled\": true or false")
        await manager.set_enabled(name, enabled)
        return {}

    return {"mcp_status": status, "mcp_reconnect": reconnect, "mcp_toggle": toggle}


def _manager(servers: McpServers | None) -> McpManager | None:
    """The manager behind the agent's narrow view of its servers (this room's own class)."""
    from agentcli.mcp.manager import McpManager

    return servers if isinstance(servers, McpManager) else None


def _target(manager: McpManager | None, req: dict[str, Any]) -> tuple[McpManager, str]:
    name = req.get("serverName")
    if not isinstance(name, str) or not name:
        raise UsageError(f"{req.get('subtype')} needs \"serverName\"")
    if manager is None or name not in manager.connections:
        raise UsageError(f"MCP server {name!r} not found")
    return manager, name


def declare_sdk_servers(names: Any, agent: Agent, settings: Settings, sdk_request: SdkRequest) -> list[str]:
    """`initialize.sdkMcpServers` → `sdk` servers of this session, talking through the SDK's control channel
    `sdk_request` (a manager is made if none was needed yet); returns one line per name that cannot be used."""
    if names is None:
        return []
    if not isinstance(names, list):
        return ["initialize: sdkMcpServers must be a list of names; ignored"]
    from agentcli.errors import ConfigError
    from agentcli.mcp.config import McpConfig, parse_entry

    good: list[str] = []
    problems: list[str] = []
    for name in names:
        try:
            good.append(parse_entry(str(name), {"type": "sdk"}, "flag", "initialize", {}).name)
        except ConfigError as err:
            problems.append(f"SDK MCP server {str(name)[:60]!r} not used: {err.message}")
    if good:
        manager = _manager(agent.mcp)
        if manager is None:
            from agentcli.assembly.runtime import attach_mcp

            manager = attach_mcp(settings, agent, McpConfig(), sdk_request)
        manager.declare_sdk(good)
    return problems
