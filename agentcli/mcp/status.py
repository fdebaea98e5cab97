"""The MCP servers of a session in the shape Claude Code reports them (`mcp_status` of the Claude Agent SDK:
`{"mcpServers": [{name, status, serverInfo?, error?, config?, scope?, tools?}]}`).

Statuses are Claude Code's (connected, failed, pending, disabled); a project server withheld until the project is
trusted is `disabled`, with the reason as its `error`. `config` never carries what a server was given to keep
secret: no env, no headers, no URL query string.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.mcp.config import ServerConfig
    from agentcli.mcp.manager import McpManager

SCOPES = {"user": "user", "project": "project", "local": "local", "flag": "dynamic"}
UNTRUSTED = "the project's MCP servers are not trusted yet (agentcli permissions trust)"


def mcp_status(manager: McpManager) -> dict[str, Any]:
    return {"mcpServers": [server_status(manager, name, status) for name, status in manager.servers()]}


def server_status(manager: McpManager, name: str, status: str) -> dict[str, Any]:
    conn = manager.connections.get(name)
    cfg = manager.config.servers.get(name) or manager.config.untrusted.get(name)
    out: dict[str, Any] = {"name": name, "status": "disabled" if status == "untrusted" else status}
    if status == "untrusted":
        out["error"] = UNTRUSTED
    if cfg is not None:
        out["config"] = public_config(cfg)
        out["scope"] = SCOPES.get(cfg.scope, cfg.scope)
    if conn is None:
        return out
    if status in ("failed", "needs-auth") and conn.error:
        out["error"] = conn.error
    if status == "connected":
        if conn.server_info:
            out["serverInfo"] = dict(conn.server_info)
        out["tools"] = [tool_info(t) for t in conn.tools]
    return out


def public_config(cfg: ServerConfig) -> dict[str, Any]:
    if cfg.transport == "stdio":
        from agentcli.redact import redact

        # the server's own secrets, and any key written into its arguments (`--api-key sk-…`, a URL's password)
        secrets = cfg.secrets()
        return {"type": "stdio", "command": redact(cfg.command or "", secrets),
                "args": [redact(a, secrets) for a in cfg.args]}
    if cfg.transport == "sdk":
        return {"type": "sdk", "name": cfg.name}
    return {"type": cfg.transport, "url": cfg.target}


def tool_info(tool: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": str(tool.get("name", ""))}
    if isinstance(tool.get("description"), str):
        out["description"] = tool["description"]
    hints = tool.get("annotations")
    if isinstance(hints, dict):
        marks = {k: hints[h] for k, h in (("readOnly", "readOnlyHint"), ("destructive", "destructiveHint"),
                                          ("openWorld", "openWorldHint")) if isinstance(hints.get(h), bool)}
        if marks:
            out["annotations"] = marks
    return out
