"""Our own overhead in the built-in tools, per call: validation + the tool's `run`, on small real files.

    .venv/bin/python bench/bench_tools.py [--repeat N]

Prints the median wall time and median CPU (thread) time per call in microseconds, and the import time of
the six tool modules. The goal for a small `Read` is well under 1 ms. Bash, Glob and Grep start a process
(bash, git, rg), so their figures are dominated by that process, not by our code.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _import_ms() -> float:
    code = (
        "import asyncio, pathlib, dataclasses, re, typing, subprocess, time\n"
        "import agentcli.tools.base\n"
        "t = time.perf_counter()\n"
        "import agentcli.tools.read, agentcli.tools.write, agentcli.tools.edit\n"
        "import agentcli.tools.bash, agentcli.tools.glob, agentcli.tools.grep\n"
        "print((time.perf_counter() - t) * 1000)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "agentcli-bench-pyc")
    runs = [float(subprocess.check_output([sys.executable, "-c", code], env=env, text=True)) for _ in range(6)]
    return statistics.median(runs[1:])  # the first run writes the bytecode cache


async def _measure(tool: Any, cycle: list[dict[str, Any]], ctx: Any, repeat: int) -> tuple[float, float]:
    from agentcli.proc.validate import validate_args

    wall: list[float] = []
    cpu: list[float] = []
    for i in range(repeat):
        args = cycle[i % len(cycle)]
        w0, c0 = time.perf_counter(), time.thread_time()
        assert not validate_args(tool.input_schema, args)
        out = await tool.run(args, ctx)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.thread_time() - c0)
        assert not out.is_error, out.content
    return statistics.median(wall) * 1e6, statistics.median(cpu) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=300)
    repeat = parser.parse_args().repeat

    from agentcli.tools.base import ToolContext

    root = Path(os.path.realpath(tempfile.mkdtemp(prefix="agentcli-bench-tools-")))
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("".join(f"value_{i} = {i}\n" for i in range(200)))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    ctx = ToolContext(project_root=root, secrets=("sk-bench-not-a-key",))
    edit = {"file_path": "src/app.py", "old_string": "value_7 = 7\n", "new_string": "value_7 = 7  # x\n"}
    undo = {**edit, "old_string": edit["new_string"], "new_string": edit["old_string"]}
    few = max(repeat // 10, 5)
    calls: list[tuple[str, list[dict[str, Any]], int]] = [
        ("Read", [{"file_path": str(root / "src/app.py")}], repeat),
        ("Read", [{"file_path": "src/app.py", "offset": 100, "limit": 20}], repeat),
        ("Edit", [edit, undo], few),
        ("Glob", [{"pattern": "**/*.py"}], few),
        ("Grep", [{"pattern": "value_1[0-9]", "output_mode": "content"}], few),
        ("Bash", [{"command": "true"}], few),
    ]
    try:
        _report(calls, ctx, edit, repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _report(calls: list[tuple[str, list[dict[str, Any]], int]], ctx: Any, edit: dict[str, Any], repeat: int) -> None:
    from agentcli.tools.registry import load_tool

    print(f"import of the six tool modules (bytecode cached): {_import_ms():.1f} ms")
    print(f"{'call':<58} {'wall µs':>9} {'cpu µs':>9}")
    for name, cycle, n in calls:
        tool = load_tool(name)
        if name == "Edit":
            asyncio.run(load_tool("Read").run({"file_path": edit["file_path"]}, ctx))
        wall, cpu = asyncio.run(_measure(tool, cycle, ctx, n))
        label = f"{name}({', '.join(f'{k}={v!r}' for k, v in cycle[0].items())})"
        print(f"{label[:58]:<58} {wall:>9.0f} {cpu:>9.0f}")


if __name__ == "__main__":
    main()
