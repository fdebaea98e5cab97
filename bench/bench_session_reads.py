"""The session read path (listing, resume), CPU time, for one or more agentcli trees, processes interleaved.

    .venv/bin/python bench/bench_session_reads.py [--runs 9] DIR [DIR ...]

Each DIR holds an agentcli package (an earlier version: `git archive <rev> agentcli | tar -x -C DIR`). One
temporary AGENTCLI_HOME holds 2,000 two-message sessions and one 10,000-record session (written by the first
tree); each run is a fresh process per tree measuring `list_sessions` with no cache (cold), then with it (warm),
then `open_session(resume=…)` of the big session. Prints the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SETUP = r'''
import sys
from pathlib import Path
from agentcli.llm.messages import Message, TextBlock
from agentcli.session.store import open_session
p = Path(sys.argv[1])
for i in range(2000):
    s = open_session(p, model="m", provider="p", checkpoints=False)
    s.writer.message(Message.user(f"task {i}"))
    s.writer.message(Message("assistant", (TextBlock("ok"),)))
    s.close()
s = open_session(p, checkpoints=False)
reply = Message("assistant", (TextBlock("def f():\n  return 42\n" * 5),))
for i in range(10000):
    s.writer.message(Message.user("x" * 200) if i % 2 else reply)
s.close()
print(s.session_id)
'''

JOB = r'''
import resource, sys
from pathlib import Path
from agentcli.session import layout
from agentcli.session.index import list_sessions
from agentcli.session.store import open_session
p = Path(sys.argv[1])
d = layout.sessions_dir(p)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
(d / ".index.json").unlink(missing_ok=True)
t = cpu(); list_sessions(d); cold = cpu() - t
t = cpu(); list_sessions(d); warm = cpu() - t
t = cpu(); open_session(p, resume=sys.argv[2], no_persistence=True); resume = cpu() - t
print(cold * 1000, warm * 1000, resume * 1000)
'''


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("trees", nargs="+", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, proj = Path(tmp) / "home", Path(tmp) / "p"
        proj.mkdir()
        env = {**os.environ, "AGENTCLI_HOME": str(home)}
        first = {**env, "PYTHONPATH": str(args.trees[0].resolve())}
        sid = subprocess.run([sys.executable, "-c", SETUP, str(proj)], env=first, capture_output=True, text=True,
                             check=True).stdout.strip()
        for lock in (home / "projects").glob("*/*.lock"):
            lock.unlink()
        rows: dict[Path, list[list[float]]] = {t: [] for t in args.trees}
        for _ in range(args.runs):
            for tree in args.trees:
                run = subprocess.run([sys.executable, "-c", JOB, str(proj), sid], capture_output=True, text=True,
                                     check=True, env={**env, "PYTHONPATH": str(tree.resolve())})
                rows[tree].append([float(x) for x in run.stdout.split()])
    print(f"load average {os.getloadavg()[0]:.1f}, median of {args.runs}, CPU ms")
    print("| tree | list, cold cache | list, warm cache | resume 10,000 records |\n|---|---|---|---|")
    for tree, got in rows.items():
        cold, warm, resume = (statistics.median(r[k] for r in got) for k in range(3))
        print(f"| {tree} | {cold:.0f} | {warm:.0f} | {resume:.0f} |")


if __name__ == "__main__":
    main()
