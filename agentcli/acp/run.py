"""`agentcli acp`'s process: the ACP agent on stdin/stdout until the client closes the connection."""

from __future__ import annotations

import asyncio
from typing import Any


def run_acp(flags: dict[str, Any]) -> int:
    return asyncio.run(_serve(flags))


async def _serve(flags: dict[str, Any]) -> int:
    from acp import run_agent

    from agentcli.acp.agent import AcpAgent

    agent = AcpAgent(flags)
    try:
        await run_agent(agent)  # type: ignore[arg-type]
    finally:
        await agent.close()
    return 0
