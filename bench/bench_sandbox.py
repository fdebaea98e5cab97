"""What the sandbox adds to a Bash call (issue 9: ≤ 10 ms, median of 100 `true` runs).

    .venv/bin/python bench/bench_sandbox.py [--runs 100] [--mode workspace-write] [--project DIR]

Runs the Bash tool (`true`) alternately with and without the session sandbox, in one process and one event loop
(what an agent session does), and prints the median wall time of each, the median of the paired differences
(a changing load on a shared machine moves both halves of a pair alike), and the same for CPU time (user + sys of
every process involved, which depends far less on the load than wall time). The sandbox's one-time cost — finding
the secret files in the project — is measured separately, before the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentcli.sandbox.core import Sandbox
from agentcli.sandbox.spec import SandboxSpec
from agentcli.tools.base import ToolContext
from agentcli.tools.bash import BashTool


def _cpu() -> float:
    """CPU seconds (user + sys) of this process and every child it and its children waited for."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


async def one(ctx: ToolContext) -> tuple[float, float]:
    """(wall, CPU) seconds of one Bash call."""
    t0, c0 = time.perf_counter(), _cpu()
    out = await BashTool().run({"command": "true"}, ctx)
    assert not out.is_error, out.content
    return time.perf_counter() - t0, _cpu() - c0


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--mode", default="workspace-write")
    ap.add_argument("--project", default=str(Path(__file__).resolve().parent.parent))
    ns = ap.parse_args()
    root = Path(os.path.realpath(ns.project))
    sandbox = Sandbox(SandboxSpec(ns.mode, root, (root,)))
    t0 = time.perf_counter()
    hidden = sandbox.hidden()
    walk_ms = (time.perf_counter() - t0) * 1000
    plain = ToolContext(project_root=root, shell_cwd=root, env=dict(os.environ))
    boxed = ToolContext(project_root=root, shell_cwd=root, env=dict(os.environ), sandbox=sandbox)
    for _ in range(3):  # warm-up: page cache, first imports
        await one(plain)
        await one(boxed)
    runs_a, runs_b = [], []
    for _ in range(ns.runs):
        runs_a.append(await one(plain))
        runs_b.append(await one(boxed))
    a, b = [w for w, _ in runs_a], [w for w, _ in runs_b]
    diffs = [(y - x) * 1000 for x, y in zip(a, b, strict=True)]
    cpu_diffs = [(y[1] - x[1]) * 1000 for x, y in zip(runs_a, runs_b, strict=True)]
    print(f"mechanism: {sandbox.mechanism.name}, mode {ns.mode}, project {root}, load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"one-time secret walk: {walk_ms:.1f} ms ({len(hidden)} paths hidden)")
    print(f"Bash `true` without sandbox: median {statistics.median(a) * 1000:.1f} ms")
    print(f"Bash `true` with sandbox:    median {statistics.median(b) * 1000:.1f} ms")
    print(f"added by the sandbox: median of paired differences {statistics.median(diffs):.1f} ms "
          f"(p90 {statistics.quantiles(diffs, n=10)[-1]:.1f} ms), {ns.runs} pairs")
    print(f"CPU added by the sandbox (user+sys, every process): median of paired differences "
          f"{statistics.median(cpu_diffs):.1f} ms")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
