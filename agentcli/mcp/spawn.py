"""How a server is reached: the one place a stdio server's process is described, and the transports.

`stdio_parameters` is the single spawn point, so the kernel sandbox (agentcli/sandbox) can wrap every stdio
server's command here. The child gets the SDK's small safe environment (HOME, PATH, USER …) plus the server's
own `env`: never agentcli's provider keys.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import httpx2
from mcp.client import Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from agentcli.mcp.config import ServerConfig

if TYPE_CHECKING:
    from agentcli.mcp.sdk_transport import SdkRequest


class SdkNotAttached(Exception):
    """An `sdk` server configured in a run no Claude Agent SDK application drives (plain `-p`, the REPL)."""


def stdio_parameters(cfg: ServerConfig, cwd: Path) -> StdioServerParameters:
    """The process a stdio server runs as. Wrap here to sandbox it."""
    return StdioServerParameters(
        command=cfg.command, args=list(cfg.args), env=dict(cfg.env) or None, cwd=cfg.cwd or str(cwd),
        encoding_error_handler="replace",
    )


Wrap = Callable[[list[str], Path, dict[str, str]], tuple[list[str], dict[str, str]]]
BASE_ENV = ("HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM")


def sandboxed(cfg: ServerConfig, cwd: Path, wrap: Wrap) -> ServerConfig:
    """`cfg` with its command line confined by `wrap` (agentcli.sandbox.wrap_command): what the server may
    write and reach is then the sandbox's (workspace-write: the project; network only if the settings allow).
    The server announces its start on its stderr (agentcli.sandbox.started), so a launch the sandbox gave up on
    before it ran can be made again (agentcli.mcp.connection). Blocking (the sandbox checks itself once): call
    it off the event loop."""
    from agentcli.sandbox.started import announcing_on_stderr

    env = {**{k: os.environ[k] for k in BASE_ENV if k in os.environ}, **cfg.env}
    argv, env = wrap(announcing_on_stderr([cfg.command, *cfg.args]), Path(cfg.cwd or cwd), env)
    return dataclasses.replace(cfg, command=argv[0], args=tuple(argv[1:]), env=env)


Hook = Callable[[httpx2.Response], Awaitable[None]]


def open_transport(cfg: ServerConfig, cwd: Path, errlog: TextIO, sdk: SdkRequest | None = None, *,
                   auth: httpx2.Auth | None = None, on_response: Hook | None = None) -> Transport:
    """An un-entered transport for `cfg`; stdio servers' stderr goes to `errlog` (a log file); `sdk` servers
    travel over the SDK's control channel, when one is attached. An HTTP server's requests carry `auth` (an OAuth
    login, agentcli.mcp.oauth) and each response is shown to `on_response` (how a 401 is noticed)."""
    if cfg.transport == "sdk":
        if sdk is None:
            raise SdkNotAttached("it lives inside a Claude Agent SDK application, and no SDK drives this run "
                                 "(it is reachable only with --input-format stream-json from the SDK)")
        from agentcli.mcp.sdk_transport import sdk_transport

        return sdk_transport(cfg.name, sdk)
    if cfg.transport == "stdio":
        return stdio_client(stdio_parameters(cfg, cwd), errlog=errlog)
    hooks = [on_response] if on_response is not None else []
    if cfg.transport == "sse":
        def factory(headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None,
                    auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(headers=headers, timeout=timeout or httpx2.Timeout(CONNECT_S, read=READ_S),
                                      auth=auth, event_hooks={"response": hooks})

        return sse_client(cfg.url, headers=dict(cfg.headers), auth=auth, httpx_client_factory=factory)
    return _streamable_http(cfg, http_client(dict(cfg.headers), auth, hooks))


@asynccontextmanager
async def _streamable_http(cfg: ServerConfig, client: httpx2.AsyncClient) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's transport over our client, which it does not close (it closes only one it made itself): the
    client's connections end with the transport."""
    async with client, streamable_http_client(cfg.url, http_client=client) as streams:
        yield streams


CONNECT_S = 30.0
READ_S = 300.0  # a server may hold a response stream open this long between events


def http_client(headers: dict[str, str], auth: httpx2.Auth | None = None,
                hooks: list[Hook] | None = None) -> httpx2.AsyncClient:
    """The HTTP client of a streamable-HTTP server, with the timeouts the SDK's transports use by default (its own
    factory for them is not public); redirects are left to the transport, which follows them within the origin."""
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(CONNECT_S, read=READ_S), auth=auth,
                              event_hooks={"response": hooks or []})
