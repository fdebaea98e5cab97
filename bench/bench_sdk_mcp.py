"""What one tool call of an in-process SDK MCP server costs, against the same tool on a stdio MCP server.

    .venv/bin/python -m bench.bench_sdk_mcp [--runs 3] [--calls 15]

One `claude_agent_sdk.query()` per arm drives agentcli (`cli_path`) against the fake LLM (in this process); the
model calls `add` `--calls` times in a row, one call per reply. A: `mcp__calc__add` of `create_sdk_mcp_server`
(JSON-RPC over the SDK's control channel, the function runs in this process). B: `mcp__stdio__add`, the same
function in a stdio MCP server (the official `mcp` SDK's MCPServer) that agentcli starts. The figure is the
median gap between two consecutive model requests (the fake's arrival times): model reply, tool call, next
request; only the tool's transport differs. Arms alternate (A, B, A, B …).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import ROOT
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

MODEL = "anthropic/claude-sonnet-4-5"
STDIO_SERVER = '''
from mcp.server.mcpserver import MCPServer
server = MCPServer("stdio-calc")

@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers"""
    return f"Sum: {a + b:g}"

server.run("stdio")
'''


def wrapper(directory: Path) -> Path:
    path = directory / "agentcli"
    path.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m agentcli \"$@\"\n")
    path.chmod(0o755)
    return path


async def one_query(cli: Path, proj: Path, env: dict[str, str], servers: dict[str, Any], tool: str) -> str:
    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

    options = ClaudeAgentOptions(cli_path=cli, cwd=proj, model=MODEL, env=env, mcp_servers=servers,
                                 allowed_tools=[tool])
    result = ""
    async for m in query(prompt="add up", options=options):
        if isinstance(m, ResultMessage):
            result = m.result or ""
    return result


def gaps(fake: FakeLLM, first: int) -> list[float]:
    times = [r.received_at for r in fake.requests[first:]]
    return [b - a for a, b in itertools.pairwise(times)]


def run_arm(fake: FakeLLM, calls: int, cli: Path, proj: Path, env: dict[str, str], servers: dict[str, Any],
            tool: str) -> list[float]:
    fake.push(*[Reply(tool_calls=[ToolCall(tool, {"a": i, "b": 1})]) for i in range(calls)], Reply(text="Done."))
    first = len(fake.requests)
    assert asyncio.run(one_query(cli, proj, env, servers, tool)) == "Done."
    return gaps(fake, first)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=15)
    args = ap.parse_args()
    from claude_agent_sdk import create_sdk_mcp_server, tool

    @tool("add", "Add two numbers", {"a": float, "b": float})
    async def add(a: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"Sum: {a['a'] + a['b']:g}"}]}

    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        base = Path(tmp)
        proj = base / "proj"
        proj.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
        (proj / ".agentcli").mkdir()
        (proj / ".agentcli" / "settings.local.toml").write_text("mcp_grace_s = 60\n")
        (base / "server.py").write_text(STDIO_SERVER)
        env = {**os.environ, "AGENTCLI_HOME": str(base / "home"), "ANTHROPIC_BASE_URL": fake.url,
               "ANTHROPIC_API_KEY": "sk-ant-bench-000000"}
        cli = wrapper(base)
        sdk_arm = ({"calc": create_sdk_mcp_server("calculator", tools=[add])}, "mcp__calc__add")
        stdio_arm = ({"stdio": {"command": sys.executable, "args": [str(base / "server.py")]}}, "mcp__stdio__add")
        a: list[float] = []
        b: list[float] = []
        run_arm(fake, 2, cli, proj, env, *sdk_arm)  # warm-up: page cache, session directory
        for _ in range(args.runs):
            a += run_arm(fake, args.calls, cli, proj, env, *sdk_arm)
            b += run_arm(fake, args.calls, cli, proj, env, *stdio_arm)
    load = os.getloadavg()[0]
    med_a, med_b = statistics.median(a), statistics.median(b)
    print(f"runs {args.runs} × {args.calls} calls, load average {load:.1f}")
    print("| tool transport | median gap between model requests (ms) |\n|---|---|")
    print(f"| in-process SDK server (`mcp_message` over the control channel) | {med_a * 1000:.1f} |")
    print(f"| stdio MCP server (same function) | {med_b * 1000:.1f} |")


if __name__ == "__main__":
    main()
