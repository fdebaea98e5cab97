"""Provider-layer benchmarks against the fake LLM server (run as its own process).

    .venv/bin/python bench/bench_providers.py [--tokens 20000] [--runs 5]

Reports, median of --runs: a 20,000-token reply (one token per SSE event) streamed through each lean adapter
(wall and client CPU), reading the same bytes raw, the official SDKs on the same stream, and a whole process
that imports an adapter and makes one small request.
"""

from __future__ import annotations

import argparse
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

PRERENDER = ("/v1/messages", "/v1/chat/completions")


async def raw_run(name: str, url: str) -> tuple[int, float, float]:
    path = "/v1/messages" if name == "anthropic" else "/v1/chat/completions"
    body = {"model": "bench", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "go"}]}
    return await raw_bytes(url + path, body)


def _base(name: str, url: str) -> str:
    return url if name == "anthropic" else f"{url}/v1"


async def lean_run(name: str, url: str) -> tuple[int, float, float]:
    from agentcli.providers.factory import make_provider

    base = url if name == "anthropic" else f"{url}/v1"
    p = make_provider(ProviderConfig(name, base_url=base, api_key="dummy"), retries=False)
    req = ModelRequest("bench", "", (Message.user("go"),))
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    async for ev in p.stream(req):
        n += isinstance(ev, TextDelta)
    t1, c1 = time.perf_counter(), time.process_time()
    await p.aclose()
    return n, t1 - t0, c1 - c0


async def sdk_run(name: str, url: str) -> tuple[int, float, float]:
    msgs: Any = [{"role": "user", "content": "go"}]
    n = 0
    if name == "anthropic":
        import anthropic

        a = anthropic.AsyncAnthropic(base_url=url, api_key="dummy", max_retries=0)
        t0, c0 = time.perf_counter(), time.process_time()
        stream = await a.messages.create(model="bench", max_tokens=10, messages=msgs, stream=True)
        async for ev in stream:
            n += ev.type == "content_block_delta"
        t1, c1 = time.perf_counter(), time.process_time()
        await a.close()
    else:
        import openai

        o = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="dummy", max_retries=0)
        t0, c0 = time.perf_counter(), time.process_time()
        ostream = await o.chat.completions.create(model="bench", messages=msgs, stream=True)
        async for chunk in ostream:
            n += bool(chunk.choices and chunk.choices[0].delta.content)
        t1, c1 = time.perf_counter(), time.process_time()
        await o.close()
    return n, t1 - t0, c1 - c0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    small_proc, small_url = start_fake({"text": "ok"}, PRERENDER)
    for burst in (True, False):
        pieces = [f"t{i % 10} " for i in range(args.tokens)]
        proc, url = start_fake({"pieces": pieces, "burst": burst, "usage": {"input_tokens": 10}}, PRERENDER)
        try:
            print(f"\n== {args.tokens} tokens, one per SSE event; server writes "
                  f"{'the whole body at once' if burst else 'one chunk per event'} ==")
            for name in ("anthropic", "openai"):
                for label, fn in (("lean adapter", lean_run), ("raw bytes only", raw_run), ("official SDK", sdk_run)):
                    if fn is sdk_run and not burst:
                        continue
                    n, wall, cpu = median_of(args.runs, fn, name, url)
                    print(f"{name:9} {label:15} wall {wall * 1000:7.1f} ms  client CPU {cpu * 1000:7.1f} ms  ({n})")
        finally:
            proc.terminate()
            proc.wait()
    print()
    for name in ("anthropic", "openai"):
        print(f"{name:9} whole process, one small request: "
              f"{process_run(name, _base(name, small_url), 'small', args.runs) * 1000:.0f} ms (median of {args.runs})")
    small_proc.terminate()
    small_proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
