"""How a server is reached: the one place a stdio server's process is described, and the transports.

`stdio_parameters` is the single spawn point, so the kernel sandbox (agentcli/sandbox) can wrap every stdio
server's command here. The child gets the SDK's small safe environment (HOME, PATH, USER …) plus the server's
own `env`: never agentcli's provider keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mcp.client._transport import Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agentcli.mcp.config import ServerConfig


def stdio_parameters(cfg: ServerConfig, cwd: Path) -> StdioServerParameters:
    """The process a stdio server runs as. Wrap here to sandbox it."""
    return StdioServerParameters(
        command=cfg.command, args=list(cfg.args), env=dict(cfg.env) or None, cwd=cfg.cwd or str(cwd),
        encoding_error_handler="replace",
    )


def open_transport(cfg: ServerConfig, cwd: Path, errlog: TextIO) -> Transport:
    """An un-entered transport for `cfg`; stdio servers' stderr goes to `errlog` (a log file)."""
    if cfg.transport == "stdio":
        return stdio_client(stdio_parameters(cfg, cwd), errlog=errlog)
    if cfg.transport == "sse":
        return sse_client(cfg.url, headers=dict(cfg.headers))
    return streamable_http_client(cfg.url, http_client=create_mcp_http_client(headers=dict(cfg.headers)))
