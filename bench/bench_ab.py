"""A/B of two commands' CPU time, interleaved, for a machine whose load changes from one second to the next.

    .venv/bin/python bench/bench_ab.py [--runs 21] [--setup SHELL] -- CMD_A ... -- CMD_B ...

Runs A and B alternately (which of them goes first alternates too); prints each one's median CPU (user+sys of
the process and the children it waited for, from `os.wait4`) and wall time, and the medians of the paired
differences A − B, which a change in load affects far less than two separate medians. `--setup`: a shell
command run (not timed) before every run, e.g. to put back a file the scenario edits. Example, an earlier
version against the current one (the earlier package unpacked with `git archive <rev> agentcli | tar -x -C
/tmp/old`, a fake server already running at $URL; run it from a directory outside the repository, or
`python -m agentcli` finds the repository's package first):

    cd /tmp/proj && ANTHROPIC_BASE_URL=$URL ANTHROPIC_API_KEY=sk-x $PY $REPO/bench/bench_ab.py -- \\
        env PYTHONPATH=/tmp/old $PY -m agentcli -p hi --model anthropic/claude-sonnet-4-5 -- \\
        $PY -m agentcli -p hi --model anthropic/claude-sonnet-4-5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def run(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime


def main() -> int:
    argv = sys.argv[1:]
    if argv.count("--") != 2:
        raise SystemExit(__doc__)
    first = argv.index("--")
    second = argv.index("--", first + 1)
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--setup", help="a shell command run, untimed, before every run")
    args = ap.parse_args(argv[:first])
    a, b = argv[first + 1 : second], argv[second + 1 :]
    ra, rb = [], []
    for i in range(args.runs):
        # ABBA: which one runs first alternates; whichever runs first after the setup was measured ~11 ms
        # faster in wall time (perf3), a bias a fixed order would add to every pair.
        for cmd, out in ((a, ra), (b, rb)) if i % 2 == 0 else ((b, rb), (a, ra)):
            if args.setup:
                subprocess.run(args.setup, shell=True, check=True)
            out.append(run(cmd))

    def med(rs: list[tuple[float, float]], i: int) -> float:
        return statistics.median(r[i] for r in rs) * 1000

    diff = statistics.median(x[1] - y[1] for x, y in zip(ra, rb, strict=True)) * 1000
    wall = statistics.median(x[0] - y[0] for x, y in zip(ra, rb, strict=True)) * 1000
    print(f"A: CPU {med(ra, 1):.0f} ms, wall {med(ra, 0):.0f} ms (min CPU {min(r[1] for r in ra) * 1000:.0f})")
    print(f"B: CPU {med(rb, 1):.0f} ms, wall {med(rb, 0):.0f} ms (min CPU {min(r[1] for r in rb) * 1000:.0f})")
    print(f"median of paired CPU differences A − B: {diff:+.1f} ms over {args.runs} pairs; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"median of paired wall differences A − B: {wall:+.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
