"""`agentcli mcp list`'s health check, as `claude mcp list` does it: every server that would start in this project
is connected once (in parallel, each bounded by MCP_TIMEOUT, under the sandbox its settings ask for), its state
read, and the connection closed. Servers withheld until the project is trusted are not started.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentcli.mcp.config import McpConfig, ServerConfig

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

    wanted = settings.mcp.sandbox or any(s.sandbox for s in config.servers.values())
    wrap = None
    if wanted:
        from agentcli.sandbox import wrap_command

        wrap = functools.partial(wrap_command, settings)
    checked = McpConfig(servers=dict(config.servers))
    manager = McpManager(checked, settings.cwd, grace_s=None, connect_timeout_s=settings.mcp.connect_timeout_s,
                         wrap=wrap, sandbox_all=settings.mcp.sandbox)
    manager.start()
    try:
        await manager.refresh()
        out: dict[str, Health] = {}
        for name, status in manager.servers():
            conn = manager.connections.get(name)
            if conn is not None and status == "connected":
                out[name] = Health(status, f"{len(conn.tools)} tools")
                continue
            error = (conn.error if conn is not None else manager.skipped(name)) or "not started"
            tail = conn.stderr_tail() if conn is not None else ""
            out[name] = Health(status, f"{error}; its stderr ended: {tail}" if tail else error)
        return out
    finally:
        await manager.aclose()


def doctor_lines(settings: Settings) -> list[str]:
    """`agentcli doctor`'s MCP section: every server of this project with its health (checked now), each one that
    waits for trust or whose entry cannot be used, and each MCP_* variable that is not understood."""
    import asyncio
    import os

    from agentcli.mcp.config import add_claude_servers, load
    from agentcli.mcp.limits import resolve

    config = load(settings.project_root, settings.mcp.config, settings.mcp.strict_config)
    if not settings.mcp.strict_config:
        add_claude_servers(config, settings.mcp.claude_servers)
    limits = resolve(os.environ, settings.mcp.connect_timeout_s, settings.mcp.tool_timeout_s)
    if not (config.servers or config.untrusted or config.problems or limits.problems):
        return ["MCP servers: none configured"]
    found = asyncio.run(check(config, settings)) if config.servers else {}
    out = [f"MCP servers: {len(config.servers)} to start, {len(config.untrusted)} waiting for trust "
           f"(connect timeout {limits.connect_timeout_s:g} s{limits.connect_source()})"]
    for name, cfg in config.servers.items():
        health = found.get(name)
        state = f"{health.status} ({health.detail})" if health is not None else "not checked"
        out.append(f"  {name} [{cfg.scope}] {_shown(cfg)}: {state}")
    out += [f"  {name} [{cfg.scope}] {_shown(cfg)}: not started, the project is not trusted (agentcli "
            "permissions trust)" for name, cfg in config.untrusted.items()]
    out += [f"  problem: {p}" for p in (*config.problems, *limits.problems)]
    return out


def _shown(cfg: ServerConfig) -> str:
    """What a server runs, fit for a bug report: its own secrets and any key written into its arguments removed."""
    from agentcli.redact import redact
    from agentcli.settings.trust import printable

    return printable(redact(cfg.target, cfg.secrets()))
