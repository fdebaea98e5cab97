"""Benchmarks for the Ollama, OpenAI Responses and Gemini adapters against the fake LLM server.

    .venv/bin/python bench/bench_other_providers.py [--tokens 20000] [--runs 5]

Median of --runs: a --tokens reply (one token per event) streamed through each lean adapter vs reading the same
bytes raw (client CPU is the figure that matters: normalizing may add at most 5%), then a whole process that
imports an adapter and makes one small request (an upper bound for "process start to first request byte").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcli.core.events import TextDelta  # noqa: E402
from agentcli.llm.messages import Message  # noqa: E402
from agentcli.providers.base import ModelRequest, ProviderConfig  # noqa: E402
from bench.common import median_of, process_run, raw_bytes, start_fake  # noqa: E402

# name → (request path, base URL suffix, model, options, minimal raw body)
TARGETS: dict[str, tuple[str, str, str, dict[str, Any], dict[str, Any]]] = {
    "ollama": ("/api/chat", "", "bench", {"num_ctx": 4096, "text_tool_calls": False},
               {"model": "bench", "messages": [{"role": "user", "content": "go"}]}),
    "openai-responses": ("/v1/responses", "/v1", "bench", {}, {"model": "bench", "input": "go", "stream": True}),
    "google": ("/v1beta/models/bench:streamGenerateContent?alt=sse", "", "bench", {},
               {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}),
}
PRERENDER = [t[0] for t in TARGETS.values()]


def config(name: str, url: str) -> ProviderConfig:
    _, suffix, _, options, _ = TARGETS[name]
    return ProviderConfig(name, base_url=url + suffix, api_key="dummy", options=options)


async def lean_run(name: str, url: str) -> tuple[int, float, float]:
    from agentcli.providers.factory import make_provider

    p = make_provider(config(name, url), retries=False)
    req = ModelRequest(TARGETS[name][2], "", (Message.user("go"),))
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    async for ev in p.stream(req):
        n += isinstance(ev, TextDelta)
    t1, c1 = time.perf_counter(), time.process_time()
    await p.aclose()
    return n, t1 - t0, c1 - c0


async def raw_run(name: str, url: str) -> tuple[int, float, float]:
    path, _, _, _, body = TARGETS[name]
    return await raw_bytes(url + path, body)


async def parse_run(name: str, url: str) -> tuple[int, float, float]:
    """The floor any client pays: read the bytes and decode every event's JSON, nothing else."""
    from agentcli.net.http import HttpClient
    from agentcli.net.sse import NDJSONDecoder, SSEDecoder

    path, _, _, _, body = TARGETS[name]
    client = HttpClient()
    t0, c0 = time.perf_counter(), time.process_time()
    resp = await client.send("POST", url + path, json=body)
    n = 0
    if name == "ollama":
        nd = NDJSONDecoder()
        async for chunk in resp.aiter_bytes():
            n += len(nd.feed(chunk))
    else:
        sse = SSEDecoder()
        async for chunk in resp.aiter_bytes():
            for ev in sse.feed(chunk):
                json.loads(ev.data)
                n += 1
    t1, c1 = time.perf_counter(), time.process_time()
    await client.aclose()
    return n, t1 - t0, c1 - c0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    pieces = [f"t{i % 10} " for i in range(args.tokens)]
    proc, url = start_fake({"pieces": pieces, "burst": True, "usage": {"input_tokens": 10}}, PRERENDER)
    try:
        print(f"== {args.tokens} tokens, one per event, body written at once; median of {args.runs} ==")
        for name in TARGETS:
            _, _, raw_cpu = median_of(args.runs, raw_run, name, url)
            _, _, parse_cpu = median_of(args.runs, parse_run, name, url)
            n, wall, cpu = median_of(args.runs, lean_run, name, url)
            print(f"{name:17} lean adapter wall {wall * 1000:6.1f} ms CPU {cpu * 1000:6.1f} ms ({n} deltas) | "
                  f"bytes only CPU {raw_cpu * 1000:5.1f} ms | bytes+JSON decode CPU {parse_cpu * 1000:6.1f} ms "
                  f"(adapter +{(cpu / parse_cpu - 1) * 100:.0f}%)")
    finally:
        proc.terminate()
        proc.wait()
    small, small_url = start_fake({"text": "ok"}, PRERENDER)
    try:
        for name in TARGETS:
            cfg = config(name, small_url)
            assert cfg.base_url is not None
            ms = process_run(name, cfg.base_url, TARGETS[name][2], args.runs, cfg.options) * 1000
            print(f"{name:17} whole process, one small request: {ms:.0f} ms")
    finally:
        small.terminate()
        small.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
