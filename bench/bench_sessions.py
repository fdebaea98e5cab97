"""Session performance (issue 4). Prints a markdown table for bench/RESULTS.md.

    .venv/bin/python bench/bench_sessions.py [--records 100000]

- append: time per record appended at records 10..1,010 and at 100,000..101,000 of one file (must be flat);
- resume: `open_session(resume=…)` of a 10,000-record session (load + walk + repair), in-process;
- list: `sessions list` over 2,000 sessions, cold (no index cache) and warm, in-process and as a process;
- checkpoint: a 5,000-file tree, first snapshot, then 3 files changed (plain dir and git repo).
Everything runs under a temporary AGENTCLI_HOME.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentcli.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock  # noqa: E402
from agentcli.session import layout  # noqa: E402
from agentcli.session.store import open_session  # noqa: E402

ROWS: list[tuple[str, str, str]] = []


def row(name: str, value: str, target: str) -> None:
    ROWS.append((name, value, target))
    print(f"  {name}: {value}  (target {target})", file=sys.stderr)


def timed(fn: Callable[[], object], runs: int = 5) -> float:
    """Median wall time in ms."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def _messages(i: int) -> Message:
    if i % 3 == 0:
        return Message.user(f"please look at file number {i} and tell me what it does")
    if i % 3 == 1:
        return Message("assistant", (TextBlock("Let me read it."), ToolUseBlock(f"t{i}", "Read", {"path": f"f{i}.py"})))
    return Message("user", (ToolResultBlock(f"t{i - 1}", "def f():\n    return 42\n" * 5),))


def bench_append(project: Path, total: int) -> None:
    """Fill one session to `total` records, then append to it and to a fresh session in turns (so both
    see the same machine load): the fresh one is at records 10..1,010, the big one past `total`."""
    secrets = ("sk-this-is-a-secret-key-000000",)
    big = open_session(project, secrets=secrets, checkpoints=False)
    assert big.writer is not None
    for i in range(total):
        big.writer.message(_messages(i), model="m")
    small = open_session(project, secrets=secrets, checkpoints=False)
    assert small.writer is not None
    for i in range(10):
        small.writer.message(_messages(i), model="m")
    early: list[float] = []
    late: list[float] = []
    for i in range(1000):
        msg = _messages(i)
        for w, out in ((small.writer, early), (big.writer, late)):
            t = time.perf_counter_ns()
            w.message(msg, model="m")
            out.append((time.perf_counter_ns() - t) / 1000)
    size = big.writer.path.stat().st_size
    small.close()
    big.close()
    e, la = statistics.median(early), statistics.median(late)
    row("append, records 10–1,010 (median)", f"{e:.1f} µs", "flat")
    row(f"append, records {total:,}–{total + 1000:,} (median)", f"{la:.1f} µs ({size / 1e6:.0f} MB file)",
        "same as at 10")


def bench_resume(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    for i in range(10_000):
        s.writer.message(_messages(i))
    s.close()
    ms = timed(lambda: open_session(project, resume=s.session_id, no_persistence=True), runs=5)
    row("resume a 10,000-record session (load + repair)", f"{ms:.0f} ms", "≤ 300 ms")


def bench_list(project: Path) -> None:
    d = layout.sessions_dir(project)
    for i in range(2000):
        s = open_session(project, model="m", provider="p", checkpoints=False)
        assert s.writer is not None
        s.writer.message(Message.user(f"task {i}"))
        s.writer.message(Message("assistant", (TextBlock("ok"),)))
        s.close()
    for p in d.glob("*.lock"):
        p.unlink()
    from agentcli.commands.sessions import main

    def listing() -> None:
        with redirect_stdout(io.StringIO()):
            main(["-C", str(project), "list"])

    def cold() -> None:
        (d / ".index.json").unlink(missing_ok=True)
        listing()

    row("sessions list, 2,000 sessions, cold cache (in-process)", f"{timed(cold, 3):.0f} ms", "≤ 300 ms")
    row("sessions list, 2,000 sessions, warm cache (in-process)", f"{timed(listing):.0f} ms", "≤ 300 ms")
    cmd = [sys.executable, "-m", "agentcli", "sessions", "-C", str(project), "list"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ms = timed(lambda: subprocess.run(cmd, env=env, capture_output=True, check=True))
    row("`agentcli sessions list`, 2,000 sessions, whole process", f"{ms:.0f} ms", "≤ 300 ms + start-up")


def bench_checkpoint(base: Path, git_repo: bool) -> None:
    project = base / ("repo" if git_repo else "plain")
    for i in range(5000):
        d = project / f"pkg{i % 50}" / f"mod{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"file{i}.py").write_text(f"# file {i}\n" + "x = 1\n" * 40)
    if git_repo:
        g = ["git", "-C", str(project), "-c", "user.email=b@x", "-c", "user.name=b"]
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        subprocess.run([*g, "add", "-A"], check=True)
        subprocess.run([*g, "commit", "-qm", "init"], check=True)
    s = open_session(project, secrets=("sk-ant-bench-secret-000000000000",))
    assert s.writer is not None
    w = s.writer
    t = time.perf_counter()
    asyncio.run(w.checkpoint("t0", "Bash"))
    first = (time.perf_counter() - t) * 1000
    times = []
    for k in range(5):
        for j in range(3):
            (project / f"pkg{j}" / f"mod{j}" / f"file{j}.py").write_text(f"changed {k}\n")
        t = time.perf_counter()
        asyncio.run(w.checkpoint(f"t{k + 1}", "Bash"))
        times.append((time.perf_counter() - t) * 1000)
    s.close()
    s2 = open_session(project, secrets=("sk-ant-bench-secret-000000000000",))
    assert s2.writer is not None
    (project / "pkg3" / "mod3" / "file3.py").write_text("changed again\n")
    t = time.perf_counter()
    asyncio.run(s2.writer.checkpoint("n0", "Bash"))
    second = (time.perf_counter() - t) * 1000
    s2.close()
    kind = "git repo" if git_repo else "plain dir"
    row(f"checkpoint, 5,000 files, first in session ({kind})", f"{first:.0f} ms", "—")
    row(f"checkpoint, 5,000 files, 3 changed ({kind}, median of 5)", f"{statistics.median(times):.0f} ms",
        "≤ 200 ms")
    row(f"checkpoint, 5,000 files, first of the project's next session ({kind})", f"{second:.0f} ms", "—")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["AGENTCLI_HOME"] = str(base / "home")
        for name in ("a", "r", "l"):
            (base / name).mkdir()
        bench_append(base / "a", args.records)
        bench_resume(base / "r")
        bench_list(base / "l")
        bench_checkpoint(base, git_repo=False)
        bench_checkpoint(base, git_repo=True)
    print("| sessions benchmark | result | target |\n|---|---|---|")
    for name, value, target in ROWS:
        print(f"| {name} | {value} | {target} |")


if __name__ == "__main__":
    main()
