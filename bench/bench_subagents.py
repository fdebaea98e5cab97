"""What starting a subagent costs before its first request: CPU of building the child (definition lookup,
policy copy, tool set, provider client, sidechain file) in a session that is already running.

    .venv/bin/python bench/bench_subagents.py --runs 50
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from agentcli.core.permissions import DenyingApprover


async def main(runs: int) -> None:
    from agentcli.agents.runner import SubagentRunner
    from agentcli.assembly.runtime import build
    from agentcli.settings.config import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENTCLI_HOME"] = str(Path(tmp) / "home")
        os.environ["ANTHROPIC_API_KEY"] = "sk-ant-bench-000000000000"
        os.environ["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # never contacted: no request is made
        proj = Path(tmp) / "proj"
        proj.mkdir()
        settings = load_settings(proj, {"model": "anthropic/claude-sonnet-4-5"})
        built = await build(settings, DenyingApprover())
        runner = built.agent.subagents
        assert isinstance(runner, SubagentRunner)
        definition = runner.definition("general-purpose")
        await runner.factory(definition, "toolu_warm")  # first child: imports what children use, once
        cpu, wall = [], []
        for i in range(runs):
            c0, t0 = time.process_time(), time.perf_counter()
            child = await runner.factory(definition, f"toolu_{i}")
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - t0)
            await child.aclose()
        await built.agent.aclose()
    print(f"runs {runs}; load {os.getloadavg()[0]:.2f}")
    print(f"child start, CPU   median {statistics.median(cpu) * 1000:.2f} ms  p90 "
          f"{sorted(cpu)[int(runs * 0.9)] * 1000:.2f} ms")
    print(f"child start, wall  median {statistics.median(wall) * 1000:.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
