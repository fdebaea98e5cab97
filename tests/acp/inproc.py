"""agentcli's ACP agent in this process, connected to the ACP SDK's own client side over a socket pair: the
protocol is the real one (JSON-RPC through the SDK's connections both ways), without the cost of starting an
`agentcli acp` process (tests/acp/test_acp_sdk.py covers the process)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent, run_agent
from acp.core import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from tests.cli.helpers import ANTHROPIC, provider_env
from tests.fakes.server import FakeLLM

TIMEOUT = 30


def use_fake(fake: FakeLLM, monkeypatch: Any) -> None:
    """The agent built in this process talks to `fake` (its provider variables set through `monkeypatch`)."""
    for k, v in provider_env(fake, ANTHROPIC).items():
        monkeypatch.setenv(k, v)


async def new_session(conn: ClientSideConnection, proj: Any) -> str:
    """A new session in `proj`, without MCP servers of the client's; its id."""
    return (await asyncio.wait_for(conn.new_session(cwd=str(proj), mcp_servers=[]), TIMEOUT)).session_id


class Client:
    """An ACP client that records every update, answers permission requests with `answer`, and, when `fs`,
    serves files from `buffers` (path → text, what its editor holds) and records its fs calls."""

    def __init__(self, answer: str = "allow_once", *, fs: bool = False, buffers: dict[str, str] | None = None,
                 save: bool = True) -> None:
        self.answer = answer
        self.fs = fs
        self.buffers = dict(buffers or {})
        self.save = save  # a write is saved to disk too (as Zed does)
        self.updates: list[Any] = []
        self.asked: list[Any] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.commands: list[Any] = []  # the last available_commands_update's
        self.commands_told = asyncio.Event()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **_: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, [o.option_id for o in options]))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.answer))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        if isinstance(update, AvailableCommandsUpdate):
            self.commands = update.available_commands
            self.commands_told.set()

    async def read_text_file(self, path: str, session_id: str, limit: int | None = None, line: int | None = None,
                             **_: Any) -> ReadTextFileResponse:
        from acp import RequestError

        self.reads.append(path)
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, content: str, path: str, session_id: str, **_: Any) -> WriteTextFileResponse:
        from pathlib import Path

        self.writes.append((path, content))
        self.buffers[path] = content
        if self.save:
            Path(path).write_text(content)
        return WriteTextFileResponse()

    def text(self, kind: type = AgentMessageChunk) -> str:
        return "".join(u.content.text for u in self.updates if isinstance(u, kind))

    def of(self, kind: type) -> list[Any]:
        return [u for u in self.updates if isinstance(u, kind)]

    def on_connect(self, conn: Any) -> None:
        pass


@contextlib.asynccontextmanager
async def connected(client: Client, flags: dict[str, Any] | None = None,
                    fs: tuple[bool, bool] = (True, True)) -> AsyncIterator[ClientSideConnection]:
    """An initialized connection to a fresh `AcpAgent` (its flags: `--model` the fake's Anthropic model); a client
    with `fs` offers reading and writing as `fs` says."""
    from agentcli.acp.agent import AcpAgent

    agent_sock, client_sock = socket.socketpair()
    agent_reader, agent_writer = await asyncio.open_connection(sock=agent_sock)
    client_reader, client_writer = await asyncio.open_connection(sock=client_sock)
    agent = AcpAgent({"model": ANTHROPIC, **(flags or {})})
    serving = asyncio.ensure_future(run_agent(agent, agent_writer, agent_reader))
    conn = connect_to_agent(client, client_writer, client_reader)
    try:
        caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs[0], write_text_file=fs[1])) \
            if client.fs else ClientCapabilities()
        await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps), TIMEOUT)
        yield conn
    finally:
        await agent.close()
        await conn.close()
        client_writer.close()
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await serving
        agent_writer.close()
