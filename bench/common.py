"""Helpers the benchmarks share: the fake LLM server as a process, and medians of repeated async runs."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def start_fake(reply: dict[str, Any], prerender: Iterable[str] = ()) -> tuple[subprocess.Popen[str], str]:
    """`python -m tests.fakes.server` answering every request with `reply`; returns the process and its URL.
    `prerender` lists request paths whose streams are rendered once up front, so the fake's own Python work
    stays out of the measurement."""
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump([reply], f)
    cmd = [sys.executable, "-m", "tests.fakes.server", "--script", path, "--loop"]
    for p in prerender:
        cmd += ["--prerender", p]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def median_of(runs: int, fn: Any, *args: Any) -> tuple[Any, float, float]:
    """Run the coroutine function `fn(*args)` -> (value, a, b) `runs` times: the first value, the medians of a, b."""
    results = [asyncio.run(fn(*args)) for _ in range(runs)]
    return results[0][0], statistics.median(r[1] for r in results), statistics.median(r[2] for r in results)


def process_run(name: str, base_url: str, model: str, runs: int, options: dict[str, Any] | None = None) -> float:
    """Median wall seconds of a whole process that imports the `name` adapter, makes one small request to
    `base_url` and exits."""
    code = (
        "import asyncio\n"
        "from agentcli.providers.factory import make_provider\n"
        "from agentcli.providers.base import ProviderConfig, ModelRequest\n"
        "from agentcli.llm.messages import Message\n"
        "async def main():\n"
        f"    p = make_provider(ProviderConfig({name!r}, base_url={base_url!r}, api_key='k',"
        f" options={options or {}!r}))\n"
        f"    [e async for e in p.stream(ModelRequest({model!r}, '', (Message.user('hi'),)))]\n"
        "    await p.aclose()\n"
        "asyncio.run(main())\n"
    )
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


async def raw_bytes(url: str, body: dict[str, Any]) -> tuple[int, float, float]:
    """The floor below any adapter: POST `body` and read the streamed bytes, nothing else.
    Returns (bytes read, wall seconds, CPU seconds)."""
    from agentcli.net.http import HttpClient

    client = HttpClient()
    t0, c0 = time.perf_counter(), time.process_time()
    resp = await client.send("POST", url, json=body)
    size = 0
    async for chunk in resp.aiter_bytes():
        size += len(chunk)
    t1, c1 = time.perf_counter(), time.process_time()
    await client.aclose()
    return size, t1 - t0, c1 - c0
