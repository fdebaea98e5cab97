"""How long one permission decision takes (rules + shell parse + path checks), for typical calls.

    .venv/bin/python bench/bench_permissions.py [--repeat N]

Prints, per call, the median wall time and the median and p95 CPU time (thread time, which does not count
waiting for a busy machine) of one decision, in microseconds; the goal is ≤ 1 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentcli.permissions.loader import load_policy
from agentcli.tools.registry import load_tool

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Bash", {"command": "git status"}),
    ("Bash", {"command": "ls -la src"}),
    ("Bash", {"command": "npm test -- --watch"}),
    ("Bash", {"command": "git diff HEAD~1 -- src | head -50"}),
    ("Bash", {"command": "cd src && grep -rn TODO . | wc -l"}),
    ("Bash", {"command": "git status; rm -rf ~"}),
    ("Bash", {"command": "find . -name '*.py' -exec grep -l foo {} \\;"}),
    ("Bash", {"command": "bash -c 'echo $(date) > out.txt' && cat out.txt"}),
    ("Bash", {"command": "cat <<'EOF' > notes.md\n# notes\nsome text\nEOF"}),
    ("Bash", {"command": "git log --oneline -5"}),
    ("Bash", {"command": "grep -rn TODO src"}),
    ("Bash", {"command": "rg -n TODO"}),
    ("Bash", {"command": "cat src/*.py | wc -l"}),
    ("Bash", {"command": "sort -k2 -n src/app.py | uniq -c"}),
    ("Read", {"file_path": "src/app.py"}),
    ("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}),
    ("Grep", {"pattern": "TODO", "path": "src"}),
]
# Not typical: every one of 300 arguments is a path to resolve (about 20 µs each); reported, not judged.
LONG = ("Bash", {"command": "ls " + " ".join(f"src/f{i}.py" for i in range(300))})
RULES = [
    "Bash(npm test *)", "Bash(git diff:*)", "Bash(make *)", "Bash(cargo build *)", "Edit(src/**)",
    "Read(//usr/share/**)", "WebFetch(domain:example.com)", "mcp__github", "Bash(pytest *)", "Bash(uv run *)",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2000)
    n = ap.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp)) / "proj"
        (root / "src").mkdir(parents=True)
        (root / "src" / "app.py").write_text("a\n")
        # a small real project: 400 files in 20 folders for the recursive readers to walk, and a git config
        for d in range(20):
            (root / "src" / f"m{d}").mkdir()
            for f in range(20):
                (root / "src" / f"m{d}" / f"f{f}.py").write_text("x\n")
        (root / ".git").mkdir()
        (root / ".git" / "config").write_text("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = x\n")
        os.environ["AGENTCLI_HOME"] = str(Path(tmp) / "home")
        policy = load_policy(root, "default", allowed_flags=RULES, disallowed_flags=["Bash(rm -rf /:*)"])
        worst = 0.0
        print(f"{'call':<58} {'wall med':>9} {'cpu med':>8} {'cpu p95':>8}  verdict")
        for name, args in [*CALLS, LONG]:
            tool = load_tool(name)
            wall, cpu = [], []
            for _ in range(n):
                t0, c0 = time.perf_counter(), time.thread_time()
                verdict = policy.check(tool, args)
                cpu.append((time.thread_time() - c0) * 1e6)
                wall.append((time.perf_counter() - t0) * 1e6)
            cpu.sort()
            p95 = cpu[int(len(cpu) * 0.95)]
            if (name, args) != LONG:
                worst = max(worst, p95)
            label = f"{name} {next(iter(args.values()))!r}"[:58]
            med_wall, med_cpu = statistics.median(wall), statistics.median(cpu)
            print(f"{label:<58} {med_wall:>9.1f} {med_cpu:>8.1f} {p95:>8.1f}  {verdict.behavior}")
        print(f"worst CPU p95 of the typical calls: {worst:.1f} µs ({'ok' if worst <= 1000 else 'OVER'} against 1 ms)")


if __name__ == "__main__":
    main()
