"""What a no-op hook adds to a tool call beyond the hook process's own run time.

Interleaved pairs, `--runs` of each: (a) agentcli's PreToolUse path for one call with one no-op hook (`true`):
select, announce, spawn with JSON on stdin, wait, parse, combine, record; (b) the same `bash -c true` started
bare with asyncio. The overhead is the median of a − b. Also: the cost of the same path with no hook configured.

    .venv/bin/python bench/bench_hooks.py --runs 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from agentcli.core.hooks import HookOutcome, fire
from agentcli.core.sink import NullSink
from agentcli.hooks.config import HookSpec
from agentcli.hooks.engine import HookEngine
from agentcli.hooks.process import shell

PAYLOAD = {"session_id": "s", "permission_mode": "default", "tool_name": "Bash",
           "tool_input": {"command": "ls -la"}, "tool_use_id": "toolu_1"}


async def with_hook(engine: HookEngine | None, sink: NullSink) -> float:
    t0 = time.perf_counter()
    async for ev in fire(engine, sink, "PreToolUse", "Bash", PAYLOAD):
        if isinstance(ev, HookOutcome):
            assert not ev.block
    return time.perf_counter() - t0


async def bare() -> float:
    t0 = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(shell(), "-c", "true", stdin=asyncio.subprocess.PIPE,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    await proc.communicate(b"{}")
    return time.perf_counter() - t0


async def main(runs: int) -> None:
    root = Path.cwd()
    engine = HookEngine([HookSpec("PreToolUse", "Bash", "true", 60.0, "bench")], project_dir=root, cwd=root,
                        env=dict(os.environ))
    sink = NullSink("bench")
    diffs, hooked, plain, none = [], [], [], []
    for _ in range(runs):
        a = await with_hook(engine, sink)
        b = await bare()
        hooked.append(a)
        plain.append(b)
        diffs.append(a - b)
        none.append(await with_hook(None, sink))
    ms = 1000
    print(f"runs {runs}; load {os.getloadavg()[0]:.2f}")
    print(f"no-op hook, whole PreToolUse path  median {statistics.median(hooked) * ms:.2f} ms")
    print(f"bash -c true alone                 median {statistics.median(plain) * ms:.2f} ms")
    print(f"overhead (median of paired a - b)  {statistics.median(diffs) * ms:.2f} ms")
    print(f"no hook configured                 median {statistics.median(none) * 1e6:.1f} µs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    asyncio.run(main(parser.parse_args().runs))
