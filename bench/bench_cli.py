"""The command line's own cost, an earlier agentcli against this one, runs interleaved (A, B, A, B …) so a change
in the machine's load hits both alike; the figure that counts is the median of the paired CPU differences.

    .venv/bin/python -m bench.bench_cli --before DIR [--runs 15]

DIR holds an earlier package (`git archive <rev> agentcli presets | tar -x -C DIR`). Measured: `--version`,
`--help`, a one-reply `-p` run against the fake server (anthropic, with --allowedTools and --max-turns, so the
flags are really parsed), `sessions list`, and, in-process, parsing a REPL invocation's argv with the flag
table alone and with typer (imports included). Prints markdown rows for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.bench_headless import PY, ROOT, SCENARIOS, TARGETS, clean_env, fake_server, timed

PARSE = """
import sys, time
t0 = time.process_time()
argv = ["--model", "anthropic/claude-sonnet-4-5", "--max-turns", "3", "--allowedTools", "Read", "Edit", "fix it"]
if sys.argv[1] == "typer":
    from agentcli.cli.app import dispatch
    dispatch(argv)
else:
    from agentcli.cli.entry import fast_values
    fast_values(argv)
print(time.process_time() - t0)
"""


def paired(n: int, a: list[str], b: list[str], cwd: Path, env_a: dict[str, str], env_b: dict[str, str]
           ) -> tuple[float, float, float]:
    """(median CPU of A, median CPU of B, median of paired differences B − A), milliseconds."""
    ca, cb = [], []
    for _ in range(n):
        ca.append(timed(a, cwd, env_a)[1])
        cb.append(timed(b, cwd, env_b)[1])
    diff = statistics.median(y - x for x, y in zip(ca, cb, strict=True))
    return statistics.median(ca) * 1000, statistics.median(cb) * 1000, diff * 1000


def parse_cost(n: int, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Median in-process CPU (ms) of parsing a REPL argv: the table reader, then typer."""
    out: dict[str, list[float]] = {"table": [], "typer": []}
    for _ in range(n):
        for how in out:
            proc = subprocess.run([PY, "-c", PARSE, how], cwd=cwd, env=env, capture_output=True, text=True,
                                  check=True)
            out[how].append(float(proc.stdout) * 1000)
    return statistics.median(out["table"]), statistics.median(out["typer"])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    before = args.before.resolve()
    for tree in (before, ROOT):
        compileall.compile_dir(tree / "agentcli", quiet=1)
    load, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[tuple[str, tuple[float, float, float]]] = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj = tmp / "proj"
        proj.mkdir()
        base = clean_env(tmp / "home")
        env_a, env_b = {**base, "PYTHONPATH": str(before)}, {**base, "PYTHONPATH": str(ROOT)}
        agentcli = [PY, "-m", "agentcli"]
        for label, argv in (("agentcli --version", ["--version"]), ("agentcli --help", ["--help"]),
                            ("agentcli sessions list", ["sessions", "list"])):
            rows.append((label, paired(args.runs, agentcli + argv, agentcli + argv, proj, env_a, env_b)))
        target = TARGETS["anthropic"]
        with fake_server(SCENARIOS["one-reply"], tmp, target) as url:
            cmd = [*agentcli, "-p", "go", *target.args, "--allowedTools", "Read", "Edit", "--max-turns", "5"]
            rows.append(("`-p` one-reply run (anthropic)",
                         paired(args.runs, cmd, cmd, proj, {**env_a, **target.env(url)}, {**env_b, **target.env(url)})))
        table, typer_ = parse_cost(max(5, args.runs // 2), proj, env_b)
    print(f"before: {before}; after: {ROOT}")
    print(f"{started}, {args.runs} interleaved pairs, load average at start {load[0]:.2f}, "
          f"at end {os.getloadavg()[0]:.2f}\n")
    print("| command | CPU before (ms) | CPU after (ms) | median paired difference (ms) |")
    print("|---|---|---|---|")
    for label, (a, b, d) in rows:
        print(f"| {label} | {a:.0f} | {b:.0f} | {d:+.1f} |")
    print(f"\nParsing a REPL argv in-process (imports included), median CPU: table reader {table:.1f} ms, "
          f"typer {typer_:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
