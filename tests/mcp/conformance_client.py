"""agentcli's MCP client as the official conformance suite drives one: `conformance_client.py SERVER_URL`.

Connects with agentcli's own McpManager (streamable HTTP), lists the tools and calls each with arguments made
from its schema, as a model's call would arrive; prints what came back. A server that needs an OAuth login (the
`auth/*` scenarios) is logged in to as `agentcli mcp login` does it, the suite's authorization server standing in
for the browser (its authorization endpoint answers at once with the redirect).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import httpx

from agentcli.mcp.config import McpConfig, parse_entry
from agentcli.mcp.manager import McpManager
from agentcli.tools.base import ToolContext

SAMPLES = {"number": 2, "integer": 3, "string": "conformance", "boolean": True}


def sample_args(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") or {}
    return {k: SAMPLES.get(str(v.get("type")), "x") for k, v in props.items() if isinstance(v, dict)}


def browse(text: str) -> None:
    """The user's browser: opens the authorization URL and follows it back to agentcli's loopback listener."""
    urls = [w for w in text.split() if w.startswith("http")]
    if urls:
        threading.Thread(target=httpx.get, args=(urls[0],), kwargs={"follow_redirects": True, "timeout": 30},
                         daemon=True).start()


async def main(url: str) -> int:
    cfg = McpConfig(servers={"conf": parse_entry("conf", {"type": "http", "url": url}, "flag", "argv", {})})
    manager = McpManager(cfg, Path.cwd(), grace_s=20, tool_timeout_s=20)
    manager.start()
    try:
        await manager.refresh()
        conn = manager.connections["conf"]
        print(f"status {conn.status} {conn.error or ''}")
        if conn.status == "needs-auth":
            print(await manager.login("conf", browse, browser=False, timeout_s=30))
        ctx = ToolContext(project_root=Path.cwd())
        for tool in manager.all_tools():
            out = await tool.run(sample_args(tool.input_schema), ctx)
            print(f"{tool.name}: {out.content[:200]}")
        return 0 if conn.status == "connected" else 1
    finally:
        await manager.aclose()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
