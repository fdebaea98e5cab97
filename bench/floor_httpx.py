"""The floor under any httpx-based `agentcli -p`: the interpreter, asyncio and httpx (AsyncClient, as agentcli
uses it: no environment lookups, one TLS-free client for a loopback URL), sending the same streamed requests
to the same fake server and reading every byte, and nothing else: no settings, session, tools or parsing.

    OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 python bench/floor_httpx.py N

N: the number of requests (4 for a 4-turn run), each to $OPENAI_BASE_URL/responses.
bench_vs_codex.py runs it beside agentcli and Codex (`--floor`): what agentcli costs above it is agentcli's
own, what it costs itself no change inside agentcli can remove.
"""

from __future__ import annotations

import asyncio
import os
import sys
import types

# As agentcli/net/__init__.py: httpx's command-line client stays unloaded.
sys.modules.setdefault("httpx._main", types.ModuleType("httpx._main"))
# As agentcli/net/preload.py: httpcore is imported without trio (installed here by the test extras), which it
# would import whenever it is installed (a bare stand-in is enough here: this script never runs on trio).
_placed = "trio" not in sys.modules
if _placed:
    sys.modules["trio"] = types.ModuleType("trio")
import httpcore  # noqa: E402, F401

if _placed:
    del sys.modules["trio"]

import httpx  # noqa: E402


async def main(url: str, n: int) -> int:
    size = 0
    async with httpx.AsyncClient(trust_env=False, verify=False) as client:
        for _ in range(n):
            body = {"model": "gpt-5", "input": "go", "stream": True}
            async with client.stream("POST", url, json=body, headers={"authorization": "Bearer sk-x"}) as resp:
                async for chunk in resp.aiter_raw():
                    size += len(chunk)
    sys.stdout.write(f"{size}\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/responses"
    os._exit(asyncio.run(main(url, int(sys.argv[1]))))  # as agentcli: no interpreter teardown
