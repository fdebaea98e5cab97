"""`agentcli acp`'s process: the ACP agent on stdin/stdout until the client closes the connection."""

from __future__ import annotations

import asyncio
import sys
from typing import Any


def run_acp(flags: dict[str, Any]) -> int:
    return asyncio.run(_serve(flags))


async def _serve(flags: dict[str, Any]) -> int:
    from acp import run_agent, stdio_streams

    from agentcli.acp.agent import AcpAgent

    agent = AcpAgent(flags)
    reader, writer = await stdio_streams()
    # stdout is the protocol's now: a stray print anywhere (a library's warning) goes to stderr instead of
    # breaking the client's JSON-RPC stream
    sys.stdout = sys.stderr
    try:
        await run_agent(agent, writer, reader)  # type: ignore[arg-type]
    finally:
        await agent.close()
    return 0
