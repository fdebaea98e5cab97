"""Instructions a `-p` run executes (valgrind's cachegrind, `I refs`), for one or more agentcli trees: a figure
the machine's load does not change, for comparing trees on a shared machine where CPU and wall times drift by
±10–20 ms from one run to the next. It counts the agentcli process only (not git, bwrap or the fake server), and
sees no waits: it measures work, not the critical path (bench/bench_waits.py) or wall time (bench_vs_codex.py).

    .venv/bin/python bench/bench_ir.py [--scenarios one-reply,4-turn,20k] [--floor] [DIR ...]

Each DIR holds an agentcli package (default: this repository; an earlier version: `git archive <rev> agentcli |
tar -x -C DIR`). `--floor`: also bench/floor_httpx.py (sync and `--async`). Scenario `repl-start` (not a
default): the REPL's start up to its prompt's first draw, in one process, no terminal (bench/repl_start.py).
Needs `valgrind` (apt-get install valgrind); a run takes ~50× its normal time. Each figure is the smaller of
two runs: the first run of a tree can execute ~20 M more (one-time caches under AGENTCLI_HOME); after it,
repeated runs agree within ~0.2 %.
"""

from __future__ import annotations

import argparse
import compileall
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_headless import PY, ROOT, SCENARIOS, TARGETS, clean_env, fake_server

TARGET = TARGETS["openai-responses"]


def instructions(cmd: list[str], cwd: Path, env: dict[str, str]) -> int:
    with tempfile.NamedTemporaryFile("r") as log:
        subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                        f"--log-file={log.name}", *cmd], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        m = re.search(r"I\s+refs:\s+([\d,]+)", Path(log.name).read_text())
    if not m:
        raise SystemExit(f"no instruction count for {' '.join(cmd)}")
    return int(m.group(1).replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*", type=Path, default=[ROOT])
    ap.add_argument("--scenarios", default="one-reply,4-turn,20k")
    ap.add_argument("--floor", action="store_true")
    args = ap.parse_args()
    for tree in args.trees:
        compileall.compile_dir(tree / "agentcli", quiet=1)
    scenarios = args.scenarios.split(",")
    rows: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj = tmp / "proj"
        proj.mkdir()
        env0 = clean_env(tmp / "home")
        env0["HOME"] = str(tmp / "user")
        (tmp / "user").mkdir()
        for scenario in scenarios:
            if scenario == "repl-start":
                env = {**env0, "OPENAI_API_KEY": "sk-bench-000000"}
                for tree in args.trees:
                    cmd = [PY, str(ROOT / "bench" / "repl_start.py")]
                    tree_env = {**env, "PYTHONPATH": str(tree.resolve())}
                    rows.setdefault(str(tree), {})[scenario] = min(instructions(cmd, proj, tree_env) for _ in "12")
                continue
            with fake_server(SCENARIOS[scenario], tmp, TARGET) as url:
                env = {**env0, **TARGET.env(url)}
                prompt = "hello" if scenario == "one-reply" else "go"
                for tree in args.trees:
                    (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")
                    cmd = [PY, "-m", "agentcli", "-p", prompt, *TARGET.args, "--permission-mode", "bypassPermissions",
                           "--max-turns", "60"]
                    tree_env = {**env, "PYTHONPATH": str(tree.resolve())}
                    rows.setdefault(str(tree), {})[scenario] = min(instructions(cmd, proj, tree_env) for _ in "12")
                if args.floor:
                    n = "4" if scenario == "4-turn" else "1"
                    for name, extra in (("floor (sync Client in a thread)", []), ("floor (AsyncClient)", ["--async"])):
                        rows.setdefault(name, {})[scenario] = instructions(
                            [PY, str(ROOT / "bench" / "floor_httpx.py"), n, *extra], proj, env)
    print("| instructions (millions) | " + " | ".join(scenarios) + " |")
    print("|---" * (1 + len(scenarios)) + "|")
    for name, got in rows.items():
        print(f"| {name} | " + " | ".join(f"{got[s] / 1e6:.0f}" if s in got else "—" for s in scenarios) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
