"""The floor under any httpx-based `agentcli -p`: the interpreter, asyncio and httpx as agentcli uses it (since the
sixth landing the sync `Client`, each request on a worker thread handing the body to the asyncio loop; no
environment lookups, one TLS-free client for a loopback URL), sending the same streamed requests to the same fake
server and reading every byte, and nothing else: no settings, session, tools or parsing.
`--async`: httpx's `AsyncClient` instead (the floor under agentcli before the sixth landing).

    OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 python bench/floor_httpx.py N

N: the number of requests (4 for a 4-turn run), each to $OPENAI_BASE_URL/responses.
bench_vs_codex.py runs it beside agentcli and Codex (`--floor`): what agentcli costs above it is agentcli's
own, what it costs itself no change inside agentcli can remove.
"""

from __future__ import annotations

import _thread
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


async def main_async(url: str, n: int) -> int:
    size = 0
    async with httpx.AsyncClient(trust_env=False, verify=False) as client:
        for _ in range(n):
            body = {"model": "gpt-5", "input": "go", "stream": True}
            async with client.stream("POST", url, json=body, headers={"authorization": "Bearer sk-x"}) as resp:
                async for chunk in resp.aiter_raw():
                    size += len(chunk)
    return size


def fetch(client: httpx.Client, url: str, loop: asyncio.AbstractEventLoop, q: asyncio.Queue[bytes | None]) -> None:
    """The worker: send, then hand each piece to the loop (agentcli batches them per read: fewer hand-offs)."""
    body = {"model": "gpt-5", "input": "go", "stream": True}
    with client.stream("POST", url, json=body, headers={"authorization": "Bearer sk-x"}) as resp:
        for chunk in resp.iter_raw():
            loop.call_soon_threadsafe(q.put_nowait, chunk)
    loop.call_soon_threadsafe(q.put_nowait, None)


async def main_sync(url: str, n: int) -> int:
    size = 0
    loop = asyncio.get_running_loop()
    with httpx.Client(trust_env=False, verify=False) as client:
        for _ in range(n):
            q: asyncio.Queue[bytes | None] = asyncio.Queue()
            _thread.start_new_thread(fetch, (client, url, loop, q))
            while (chunk := await q.get()) is not None:
                size += len(chunk)
    return size


def main(url: str, n: int, use_async: bool) -> int:
    size = asyncio.run(main_async(url, n) if use_async else main_sync(url, n))
    sys.stdout.write(f"{size}\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/responses"
    os._exit(main(url, int(sys.argv[1]), "--async" in sys.argv[2:]))  # as agentcli: no interpreter teardown
