"""Issue 18's performance budget: an SDK round trip for a one-reply query within 1.2× of `agentcli -p` for the
same reply.

    .venv/bin/python -m bench.bench_sdk [--runs 7]

A: `agentcli -p hi --output-format stream-json --verbose` as a process (wall, and the child's CPU).
B: `claude_agent_sdk.query("hi", ClaudeAgentOptions(cli_path=agentcli))` from this process, the SDK already
   imported (it is the application's import, not agentcli's): wall from the call to the end of the message
   stream (the subprocess has exited), CPU = the child's + this process's during the call.
Both run agentcli through the same small shell wrapper, alternately (A, B, A, B …) against the fake server as
its own process with pre-rendered streams; medians are reported. The package is byte-compiled first.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, start_fake

MODEL = "anthropic/claude-sonnet-4-5"


def wrapper(directory: Path) -> Path:
    path = directory / "agentcli"
    path.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m agentcli \"$@\"\n")
    path.chmod(0o755)
    return path


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_p(cli: Path, proj: Path, env: dict[str, str]) -> tuple[float, float]:
    c0, t0 = children_cpu(), time.perf_counter()
    subprocess.run([str(cli), "-p", "hi", "--output-format", "stream-json", "--verbose", "--model", MODEL],
                   cwd=proj, env=env, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.perf_counter() - t0, children_cpu() - c0


async def sdk_query(cli: Path, proj: Path, env: dict[str, str]) -> str:
    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

    options = ClaudeAgentOptions(cli_path=cli, cwd=proj, model=MODEL, env=env)
    result = ""
    async for m in query(prompt="hi", options=options):
        if isinstance(m, ResultMessage):
            result = m.result or ""
    return result


def run_sdk(cli: Path, proj: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Wall, agentcli's CPU, the SDK's own CPU in this process."""
    c0, p0, t0 = children_cpu(), time.process_time(), time.perf_counter()
    result = asyncio.run(sdk_query(cli, proj, env))
    wall = time.perf_counter() - t0
    assert result == "Done.", result
    return wall, children_cpu() - c0, time.process_time() - p0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    compileall.compile_dir(ROOT / "agentcli", quiet=1)
    import claude_agent_sdk  # noqa: F401  (the application's import, outside the measurement)

    fake, url = start_fake({"text": "Done."}, prerender=["/v1/messages"])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            proj = base / "proj"
            proj.mkdir()
            subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
            env = {**os.environ, "AGENTCLI_HOME": str(base / "home"), "ANTHROPIC_BASE_URL": url,
                   "ANTHROPIC_API_KEY": "sk-ant-bench-000000"}
            cli = wrapper(base)
            run_p(cli, proj, env)  # warm the page cache and the session directory
            run_sdk(cli, proj, env)
            a: list[tuple[float, float]] = []
            b: list[tuple[float, float, float]] = []
            for _ in range(args.runs):
                a.append(run_p(cli, proj, env))
                b.append(run_sdk(cli, proj, env))
    finally:
        fake.terminate()
        fake.wait()
    load = os.getloadavg()[0]
    wall_a, wall_b = statistics.median(x for x, _ in a), statistics.median(x for x, _, _ in b)
    cpu_a = statistics.median(y for _, y in a)
    cpu_b = statistics.median(y + z for _, y, z in b)
    child_b, own_b = statistics.median(y for _, y, _ in b), statistics.median(z for _, _, z in b)
    print(f"runs {args.runs}, load average {load:.1f}")
    print("| what | wall (ms) | CPU (ms) |\n|---|---|---|")
    print(f"| `agentcli -p hi --output-format stream-json` | {wall_a * 1000:.0f} | {cpu_a * 1000:.0f} |")
    print(f"| SDK `query(\"hi\")` round trip | {wall_b * 1000:.0f} | {cpu_b * 1000:.0f} (agentcli "
          f"{child_b * 1000:.0f} + SDK {own_b * 1000:.0f}) |")
    print(f"| ratio SDK / -p | {wall_b / wall_a:.2f}× | {cpu_b / cpu_a:.2f}× |")


if __name__ == "__main__":
    main()
