"""What a `-p` run's main thread waits for: the session file's creation, checkpoints, the turn ends (fsync, the
turn-end snapshot), close and the sandbox probe, in wall milliseconds summed per run, for one or more agentcli
trees, runs interleaved. A measure of the critical path that a loaded machine inflates but does not hide (CPU
time cannot see a wait; whole-process wall time drowns it in the load).

    .venv/bin/python bench/bench_waits.py [--runs 15] [--scenario 4-turn|one-reply] [DIR ...]

Each DIR holds an agentcli package (default: this repository; an earlier version: `git archive <rev> agentcli |
tar -x -C DIR`). The timing is injected by a `sitecustomize` module on PYTHONPATH that wraps those methods
(only calls made on the main thread count) and writes the sums at exit; agentcli itself is unchanged. The
scenarios and the fake server are bench_headless.py's; agentcli runs as in bench_vs_codex.py.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_headless import PY, ROOT, SCENARIOS, TARGETS, clean_env, fake_server

SITECUSTOMIZE = '''
import inspect, json, os, threading, time
_tot = {}
def _wrap(owner, name, key):
    f = getattr(owner, name, None)
    if f is None:
        return
    if inspect.iscoroutinefunction(f):
        async def w(*a, **k):
            t = time.perf_counter()
            try:
                return await f(*a, **k)
            finally:
                _tot[key] = _tot.get(key, 0.0) + time.perf_counter() - t
    else:
        def w(*a, **k):
            if threading.current_thread() is not threading.main_thread():
                return f(*a, **k)
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                _tot[key] = _tot.get(key, 0.0) + time.perf_counter() - t
    setattr(owner, name, w)
import agentcli.sandbox.core as _c, agentcli.session.store as _s, agentcli.session.writer as _w
_wrap(_s, "create", "session file created")
_wrap(_w.SessionWriter, "checkpoint", "before-tool checkpoints")
_wrap(_w.SessionWriter, "append", "appends")
_wrap(_w.SessionWriter, "end_turn", "turn ends")
_wrap(_w.SessionWriter, "settle", "run-end settle (awaited: the loop is free)")
_wrap(_w.SessionWriter, "close", "close")
_wrap(_c.Sandbox, "_check_works", "sandbox probe")
_exit = os._exit
def _dump(code):
    with open(os.environ["BENCH_WAITS_OUT"], "a") as f:
        f.write(json.dumps({k: v * 1000 for k, v in _tot.items()}) + "\\n")
    _exit(code)
os._exit = _dump
'''


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--scenario", default="4-turn", choices=["4-turn", "one-reply"])
    ap.add_argument("trees", nargs="*", type=Path, default=[ROOT])
    args = ap.parse_args()
    target = TARGETS["openai-responses"]
    for tree in args.trees:
        compileall.compile_dir(tree / "agentcli", quiet=1)
    started, load0 = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        (tmp / "site").mkdir()
        (tmp / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
        proj = tmp / "proj"
        proj.mkdir()
        base = {**clean_env(tmp / "home"), "HOME": str(tmp / "user")}
        (tmp / "user").mkdir()
        cmd = [PY, "-m", "agentcli", "-p", "go", *target.args, "--permission-mode", "bypassPermissions",
               "--max-turns", "60"]
        with fake_server(SCENARIOS[args.scenario], tmp, target) as url:
            for _ in range(args.runs):
                for i, tree in enumerate(args.trees):
                    (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")
                    env = {**base, **target.env(url), "PYTHONPATH": f"{tree}:{tmp / 'site'}",
                           "BENCH_WAITS_OUT": str(tmp / f"out{i}.jsonl")}
                    subprocess.run(cmd, cwd=proj, env=env, check=True, stdout=subprocess.DEVNULL,
                                   stdin=subprocess.DEVNULL)
        print(f"{started}, {args.scenario}, median of {args.runs} interleaved runs (wall ms the main thread spent "
              f"inside each), load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end\n")
        rows = [[json.loads(line) for line in (tmp / f"out{i}.jsonl").read_text().splitlines()]
                for i in range(len(args.trees))]
    keys = sorted({k for r in rows for run in r for k in run})
    print("| tree | " + " | ".join(keys) + " | sum |")
    print("|---" * (len(keys) + 2) + "|")
    for tree, r in zip(args.trees, rows, strict=True):
        cells = [statistics.median(run.get(k, 0.0) for run in r) for k in keys]
        total = statistics.median(sum(run.values()) for run in r)
        print(f"| {tree} | " + " | ".join(f"{c:.1f}" for c in cells) + f" | {total:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
