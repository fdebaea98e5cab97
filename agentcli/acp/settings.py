"""The Settings of one ACP session: the user's (and the trusted project's) settings in the client's `cwd`, the
session id (new, or the one to load), and the client's MCP servers joined to the user's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.errors import UsageError
from agentcli.settings.config import Settings


def session_settings(cwd: str, flags: dict[str, Any], mcp_servers: list[Any] | None, *,
                     session_id: str | None = None, resume: str | None = None) -> Settings:
    from agentcli.assembly.resumed import with_session_setup
    from agentcli.settings.config import load_settings

    where = Path(cwd)
    if not where.is_absolute() or not where.is_dir():
        raise UsageError(f"cwd {cwd!r}: not an absolute path to a directory", hint="send the project's full path")
    layer = dict(flags)
    joined = mcp_config(mcp_servers or [])
    if joined is not None:
        layer["mcp_config"] = (*layer.get("mcp_config", ()), joined)
    if session_id is not None:
        layer["session_id"] = session_id
    if resume is not None:
        layer["resume"] = resume
    return with_session_setup(load_settings(where.resolve(), layer))


def mcp_config(servers: list[Any]) -> str | None:
    """The client's MCP servers (ACP's stdio and HTTP shapes) as one `--mcp-config` JSON value; SSE servers are
    given as HTTP ones is not guessed: they are left out (the MCP config reader reports what it cannot use)."""
    table: dict[str, dict[str, Any]] = {}
    for server in servers:
        data = server.model_dump(by_alias=True, exclude_none=True)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            continue
        if "command" in data:
            table[name] = {"command": data["command"], "args": list(data.get("args", [])),
                           "env": {e["name"]: e["value"] for e in data.get("env", [])}}
        elif data.get("type") in ("http", "sse") and isinstance(data.get("url"), str):
            table[name] = {"type": data["type"], "url": data["url"],
                           "headers": {h["name"]: h["value"] for h in data.get("headers", [])}}
    return json.dumps({"mcpServers": table}) if table else None
