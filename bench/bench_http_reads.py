"""How the response body reaches the stream decoders (issue 10): httpx's `aiter_raw` and `aiter_bytes` as they
are, against agentcli's `ReadAhead` (pieces joined per network read), for a 20,000-event Anthropic stream.

    .venv/bin/python bench/bench_http_reads.py [--runs 7] [--chunked]

The fake LLM server runs as its own process; `--chunked` makes it write one HTTP chunk per event (as the APIs
do), otherwise the body is one burst. Per way of reading: pieces handed on, the minimum client CPU over --runs
interleaved runs (reading the body only, then the whole adapter), and what the adapter yields.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentcli.llm.messages import Message
from agentcli.net.http import HttpClient, Response
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import ModelRequest, ProviderConfig
from bench.common import start_fake

BODY = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
WAYS: dict[str, Callable[[Response], AsyncIterator[bytes]]] = {
    "httpx aiter_raw": lambda r: r._resp.aiter_raw(),
    "httpx aiter_bytes": lambda r: r._resp.aiter_bytes(),
    "ReadAhead (agentcli)": lambda r: r.aiter_bytes(),
}


async def read_body(url: str, way: Callable[[Response], AsyncIterator[bytes]]) -> tuple[int, float]:
    client = HttpClient()
    resp = await client.send("POST", url + "/v1/messages", json=BODY)
    c0 = time.process_time()
    pieces = 0
    async for _ in way(resp):
        pieces += 1
    cpu = time.process_time() - c0
    await resp.aclose()
    await client.aclose()
    return pieces, cpu


async def adapter(url: str, way: Callable[[Response], AsyncIterator[bytes]]) -> tuple[int, float]:
    original = Response.aiter_bytes
    if way is not WAYS["ReadAhead (agentcli)"]:
        Response.aiter_bytes = lambda self: way(self)  # type: ignore[method-assign]
    try:
        p = AnthropicProvider(ProviderConfig("anthropic", base_url=url, api_key="k"))
        c0 = time.process_time()
        events = [e async for e in p.stream(ModelRequest("m", "", (Message.user("hi"),)))]
        cpu = time.process_time() - c0
        await p.aclose()
        return len(events), cpu
    finally:
        Response.aiter_bytes = original  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--chunked", action="store_true")
    args = ap.parse_args()
    reply: dict[str, Any] = {"pieces": ["tok "] * 20_000, "burst": not args.chunked}
    proc, url = start_fake(reply, prerender=["/v1/messages"])
    try:
        rows = {}
        for name, way in WAYS.items():
            body = [asyncio.run(read_body(url, way)) for _ in range(args.runs)]
            full = [asyncio.run(adapter(url, way)) for _ in range(args.runs)]
            rows[name] = (body[0][0], min(c for _, c in body), full[0][0], min(c for _, c in full))
    finally:
        proc.terminate()
    print(f"{'chunk per event' if args.chunked else 'one burst'}, min CPU of {args.runs}\n")
    print("| reading | pieces | body CPU (ms) | adapter events out | adapter CPU (ms) |")
    print("|---|---|---|---|---|")
    for name, (pieces, cpu, events, acpu) in rows.items():
        print(f"| {name} | {pieces} | {cpu * 1000:.1f} | {events} | {acpu * 1000:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
