"""Streaming overhead of every lean adapter (issue 3): a 20,000-token reply, one token per event, against the
fake LLM server running as its own process.

    .venv/bin/python bench/bench_stream.py [--tokens 20000] [--runs 7] [--providers anthropic,openai,...]
                                           [--chunked] [--replay [--tree DIR]]

For each provider, the minimum client CPU over --runs interleaved runs (and the median wall) of:
- `parse`: reading the raw stream — read the bytes, split the events (SSE or NDJSON) and decode every event's
  JSON with one `json.loads` each, nothing else (the issue's baseline);
- `batched parse`: the same with one JSON call per network read (`decode_json_batch`, as the adapters do) —
  a lower floor, shown so the adapters' own work can be seen apart from that trick;
- `adapter`: the lean adapter's `stream()` consumed to the end (normalized, merged StreamEvents).
The budget: adapter CPU ≤ parse CPU + 5%. `--chunked` makes the server write one event per write (the default
writes the whole body at once, as a fast server on a fast link delivers it).

`--replay`: no sockets in the timed part — one stream's network reads are recorded, then replayed from memory
to the plain parse and to the adapter's stream parser (minimum CPU of --runs). With `--tree DIR` the adapters
come from the agentcli package in DIR (an earlier version: `git archive <rev> agentcli | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcli.core.events import StreamEvent, TextDelta  # noqa: E402
from agentcli.llm.messages import Message  # noqa: E402
from agentcli.providers.base import ModelRequest, ProviderConfig  # noqa: E402
from bench.common import start_fake  # noqa: E402

# name → (request path, base URL suffix, options, minimal raw body, NDJSON?)
TARGETS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any], bool]] = {
    "anthropic": ("/v1/messages", "", {},
                  {"model": "bench", "max_tokens": 10, "stream": True,
                   "messages": [{"role": "user", "content": "go"}]}, False),
    "openai": ("/v1/chat/completions", "/v1", {},
               {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "go"}]}, False),
    "openai-responses": ("/v1/responses", "/v1", {}, {"model": "bench", "input": "go", "stream": True}, False),
    "google": ("/v1beta/models/bench:streamGenerateContent?alt=sse", "", {},
               {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}, False),
    "ollama": ("/api/chat", "", {"num_ctx": 4096, "text_tool_calls": False},
               {"model": "bench", "messages": [{"role": "user", "content": "go"}]}, True),
}
PRERENDER = [t[0] for t in TARGETS.values()]


async def adapter_run(name: str, url: str) -> tuple[int, int, float, float]:
    """(text characters, events, wall, CPU) of one stream through the adapter."""
    from agentcli.providers.factory import make_provider

    _, suffix, options, _, _ = TARGETS[name]
    p = make_provider(ProviderConfig(name, base_url=url + suffix, api_key="dummy", options=options), retries=False)
    req = ModelRequest("bench", "", (Message.user("go"),))
    chars = events = 0
    t0, c0 = time.perf_counter(), time.process_time()
    ev: StreamEvent
    async for ev in p.stream(req):
        events += 1
        if isinstance(ev, TextDelta):
            chars += len(ev.text)
    t1, c1 = time.perf_counter(), time.process_time()
    await p.aclose()
    return chars, events, t1 - t0, c1 - c0


async def parse_run(name: str, url: str, batched: bool = False) -> tuple[int, int, float, float]:
    """(bytes, events, wall, CPU): read the bytes, split the events and decode each one's JSON (with `batched`,
    one JSON call per network read, as the adapters do)."""
    from agentcli.net.http import HttpClient
    from agentcli.net.sse import NDJSONDecoder, SSEDecoder, decode_json_batch

    path, _, _, body, ndjson = TARGETS[name]
    client = HttpClient()
    size = n = 0
    t0, c0 = time.perf_counter(), time.process_time()
    resp = await client.send("POST", url + path, json=body)
    if ndjson and batched:
        nd = NDJSONDecoder()
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            n += len(decode_json_batch(nd.feed_lines(chunk)) or ())
    elif ndjson:
        nd = NDJSONDecoder()
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            n += len(nd.feed(chunk))
    elif batched:
        sse = SSEDecoder()
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            datas = [ev.data for ev in sse.feed(chunk) if ev.data != "[DONE]"]
            n += len(decode_json_batch(datas) or ())
    else:
        sse = SSEDecoder()
        loads = json.loads
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            for ev in sse.feed(chunk):
                if ev.data != "[DONE]":  # OpenAI's end sentinel is not JSON
                    loads(ev.data)
                n += 1
    t1, c1 = time.perf_counter(), time.process_time()
    await client.aclose()
    return size, n, t1 - t0, c1 - c0


Run = tuple[int, int, float, float]


def interleaved(runs: int, name: str, url: str) -> tuple[Run, Run, Run]:
    """(count, events, median wall, minimum CPU) of the plain parse, the batched parse and the adapter, run
    interleaved so that a change in the machine's load affects all three alike."""
    asyncio.run(parse_run(name, url))  # warm-up: imports, first connection
    asyncio.run(adapter_run(name, url))
    plain: list[Run] = []
    batched: list[Run] = []
    adapter: list[Run] = []
    for _ in range(runs):
        plain.append(asyncio.run(parse_run(name, url)))
        batched.append(asyncio.run(parse_run(name, url, batched=True)))
        adapter.append(asyncio.run(adapter_run(name, url)))

    def med(rs: list[Run]) -> Run:
        # CPU: the minimum — the work is the same every run and other jobs on the machine only ever add to it.
        return rs[0][0], rs[0][1], statistics.median(r[2] for r in rs), min(r[3] for r in rs)

    return med(plain), med(batched), med(adapter)


async def _replayed(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for c in chunks:
        yield c


def stream_parser(name: str) -> Callable[[list[bytes]], AsyncIterator[Any]]:
    """The adapter's parsing of recorded reads (everything `stream()` does after the response headers)."""
    from agentcli.net.errors import ApiIdentity

    who = ApiIdentity("bench")
    if name == "ollama":
        from agentcli.net.sse import NDJSONDecoder
        from agentcli.providers.ollama import ChatStreamParser

        async def ollama(chunks: list[bytes]) -> AsyncIterator[Any]:
            parser, decoder = ChatStreamParser(), NDJSONDecoder()
            async for c in _replayed(chunks):
                if hasattr(parser, "feed_lines"):
                    parser.feed_lines(decoder.feed_lines(c))
                    for ev in parser.sink.take():
                        yield ev
                else:  # versions before per-read batching
                    for obj in decoder.feed(c):
                        for ev in parser.feed(obj):
                            yield ev

        return ollama
    module = {"anthropic": "anthropic", "openai": "openai_chat", "openai-responses": "openai_responses",
              "google": "gemini"}[name]
    parse_stream = importlib.import_module(f"agentcli.providers.{module}").parse_stream
    return lambda chunks: parse_stream(_replayed(chunks), who)


def replay(args: argparse.Namespace, url: str) -> None:
    async def record(name: str) -> list[bytes]:
        from agentcli.net.http import HttpClient

        client = HttpClient()
        resp = await client.send("POST", url + TARGETS[name][0], json=TARGETS[name][3])
        chunks = [c async for c in resp.aiter_bytes()]
        await client.aclose()
        return chunks

    async def plain(chunks: list[bytes], ndjson: bool) -> None:
        from agentcli.net.sse import NDJSONDecoder, SSEDecoder

        if ndjson:
            nd = NDJSONDecoder()
            for c in chunks:
                nd.feed(c)
            return
        sse = SSEDecoder()
        async for c in _replayed(chunks):
            for ev in sse.feed(c):
                if ev.data != "[DONE]":
                    json.loads(ev.data)

    async def adapter(parser: Callable[[list[bytes]], AsyncIterator[Any]], chunks: list[bytes]) -> None:
        async for _ in parser(chunks):
            pass

    def cpu(*fns: Callable[[], Any]) -> list[float]:
        """Minimum CPU of each function, the runs interleaved."""
        best = [float("inf")] * len(fns)
        for _ in range(args.runs):
            for i, fn in enumerate(fns):
                c0 = time.process_time()
                asyncio.run(fn())
                best[i] = min(best[i], time.process_time() - c0)
        return best

    print(f"{args.tokens} tokens, reads recorded then replayed; CPU: minimum of {args.runs}; "
          f"adapters from {importlib.import_module('agentcli').__file__}; load average {os.getloadavg()[0]:.2f}\n")
    print("| provider | reads | parse CPU (ms) | adapter CPU (ms) | adapter vs parse |")
    print("|---|---|---|---|---|")
    for name in args.providers.split(","):
        chunks = asyncio.run(record(name))
        parser = stream_parser(name)
        p, a = cpu(lambda c=chunks, n=name: plain(c, TARGETS[n][4]), lambda c=chunks, f=parser: adapter(f, c))
        print(f"| {name} | {len(chunks)} | {p * 1000:.1f} | {a * 1000:.1f} | {(a / p - 1) * 100:+.0f}% |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--providers", default=",".join(TARGETS))
    ap.add_argument("--chunked", action="store_true", help="one server write per event")
    ap.add_argument("--replay", action="store_true", help="time recorded reads replayed from memory")
    ap.add_argument("--tree", type=Path, help="with --replay: the agentcli package to take the adapters from")
    args = ap.parse_args()
    if args.tree:
        sys.path.insert(0, str(args.tree.resolve()))
        for m in [m for m in sys.modules if m == "agentcli" or m.startswith("agentcli.")]:
            del sys.modules[m]
    pieces = [f"t{i % 10} " for i in range(args.tokens)]
    proc, url = start_fake({"pieces": pieces, "burst": not args.chunked, "usage": {"input_tokens": 10}}, PRERENDER)
    try:
        if args.replay:
            replay(args, url)
            return 0
        print(f"{args.tokens} tokens, one per event, {'one write per event' if args.chunked else 'body at once'}; "
              f"CPU: minimum of {args.runs}, wall: median; load average {os.getloadavg()[0]:.2f}\n")
        print("| provider | parse CPU (ms) | adapter CPU (ms) | adapter vs parse | batched-parse CPU (ms) | "
              "adapter vs batched parse | adapter wall (ms) | events in → out |")
        print("|---|---|---|---|---|---|---|---|")
        for name in args.providers.split(","):
            (_, n_in, _, parse_cpu), (_, _, _, floor_cpu), (chars, n_out, wall, cpu) = interleaved(
                args.runs, name, url)
            assert chars == 3 * args.tokens, (name, chars)
            print(f"| {name} | {parse_cpu * 1000:.1f} | {cpu * 1000:.1f} | {(cpu / parse_cpu - 1) * 100:+.0f}% | "
                  f"{floor_cpu * 1000:.1f} | {(cpu / floor_cpu - 1) * 100:+.0f}% | {wall * 1000:.1f} | "
                  f"{n_in} → {n_out} |")
    finally:
        proc.terminate()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
