"""The cyclic garbage collector's share of a whole `agentcli -p` process: collections and the CPU time inside
them (from `gc.callbacks`), per scenario, median of N runs.

    .venv/bin/python bench/bench_gc.py [--runs 5] [--tree DIR]

The process is started as `python -m agentcli` is, through a small wrapper that installs the callback first
and reports when the process ends (`os._exit`, which agentcli uses to skip the interpreter's teardown).
`--tree DIR`: run the agentcli package found in DIR instead (an earlier version, for comparison).
"""

from __future__ import annotations

import argparse
import compileall
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_headless import PY, ROOT, SCENARIOS, TARGETS, clean_env, fake_server

WRAPPER = """
import gc, os, runpy, sys, time
seen = {"n": 0, "t": 0.0, "t0": 0.0}
def on_gc(phase, info):
    if phase == "start":
        seen["t0"] = time.process_time()
    else:
        seen["n"] += 1
        seen["t"] += time.process_time() - seen["t0"]
gc.callbacks.append(on_gc)
exit_ = os._exit
def report(status):
    sys.stderr.write(f"GC-STATS {seen['n']} {seen['t'] * 1000:.3f}\\n")
    sys.stderr.flush()
    exit_(status)
os._exit = report
sys.argv = ["agentcli", *sys.argv[1:]]
runpy.run_module("agentcli", run_name="__main__")
"""
TARGET = TARGETS["openai-responses"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", type=Path, help="a directory holding another agentcli package")
    args = ap.parse_args()
    tree = args.tree.resolve() if args.tree else ROOT
    compileall.compile_dir(tree / "agentcli", quiet=1)
    print("| scenario | collections | CPU in the GC (ms) |\n|---|---|---|")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj = tmp / "proj"
        proj.mkdir()
        wrapper = tmp / "wrapper.py"
        wrapper.write_text(WRAPPER)
        env = {**clean_env(tmp / "home"), "PYTHONPATH": str(tree)}
        for scenario in ("one-reply", "4-turn", "20k"):
            (tmp / scenario).mkdir()
            counts, times = [], []
            with fake_server(SCENARIOS[scenario], tmp / scenario, TARGET) as url:
                for _ in range(args.runs):
                    (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")
                    run = subprocess.run([PY, str(wrapper), "-p", "go", *TARGET.args, "--permission-mode",
                                          "bypassPermissions", "--max-turns", "60"], cwd=proj,
                                         env={**env, **TARGET.env(url)}, capture_output=True, text=True)
                    found = re.search(r"GC-STATS (\d+) ([\d.]+)", run.stderr)
                    if run.returncode != 0 or found is None:
                        raise SystemExit(f"{scenario} failed ({run.returncode}): {run.stderr[-2000:]}")
                    counts.append(int(found[1]))
                    times.append(float(found[2]))
            print(f"| {scenario} | {statistics.median(counts):.0f} | {statistics.median(times):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
