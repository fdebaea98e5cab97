"""Session performance (issue 4). Prints a markdown table for bench/RESULTS.md.

    .venv/bin/python bench/bench_sessions.py [--records 100000]

- append: time per record appended at records 10..1,010 and at 100,000..101,000 of one file (must be flat);
- resume: `open_session(resume=…)` of a 10,000-record session (load + walk + repair), in-process;
- list: `sessions list` over 2,000 sessions, cold (no index cache) and warm, in-process and as a process;
- checkpoint: a 5,000-file tree, first snapshot, then 3 files changed (plain dir and git repo).
Everything runs under a temporary AGENTCLI_HOME.

    .venv/bin/python bench/bench_sessions.py --headless [--runs 7] [--files 0,5000] [--scenarios 4-turn,one-reply]
                                             [--baseline DIR] [--steady]

measures instead whole `agentcli -p` runs of two bench/bench_headless.py scenarios (4-turn Read→Edit→Bash and
one-reply) against the fake server, each with a fresh AGENTCLI_HOME (so the project's first checkpoint is cold;
`--steady` keeps one home), in a project of N extra files: median wall and median CPU (user + system of
agentcli and the git processes it waits for). `--baseline DIR` alternates run by run with the agentcli package
in DIR (e.g. a copy of the tree with some files from `git show HEAD:…`), for a before/after under equal load.
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

from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock  # noqa: E402
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
    t = time.perf_counter()
    s = open_session(project, secrets=("sk-ant-bench-secret-000000000000",))
    assert s.writer is not None
    w = s.writer
    asyncio.run(w.checkpoint("t0", "Bash"))
    first = (time.perf_counter() - t) * 1000
    times, ends, nexts = [], [], []
    for k in range(5):
        for j in range(3):
            (project / f"pkg{j}" / f"mod{j}" / f"file{j}.py").write_text(f"changed {k}\n")
        t = time.perf_counter()
        asyncio.run(w.checkpoint(f"t{k + 1}", "Bash"))
        times.append((time.perf_counter() - t) * 1000)
        w.message(Message("user", (ToolResultBlock(f"t{k + 1}", "ok"),)))
        t = time.perf_counter()
        w.end_turn()  # the turn_end snapshot: what the event loop waits for
        ends.append((time.perf_counter() - t) * 1000)
        time.sleep(0.1)  # the next model call
        t = time.perf_counter()
        w.message(Message("assistant", (TextBlock("next"),)))
        nexts.append((time.perf_counter() - t) * 1000)
    s.close()
    s2 = open_session(project, secrets=("sk-ant-bench-secret-000000000000",))
    assert s2.writer is not None
    wait_warm = getattr(s2.writer.shadow, "wait_warm", None)  # absent before the warm-up existed
    warmed = wait_warm(60) if wait_warm is not None else None
    (project / "pkg3" / "mod3" / "file3.py").write_text("changed again\n")
    t = time.perf_counter()
    asyncio.run(s2.writer.checkpoint("n0", "Bash"))
    second = (time.perf_counter() - t) * 1000
    s2.close()
    kind = "git repo" if git_repo else "plain dir"
    row(f"open + first checkpoint at once, 5,000 files, cold store ({kind})", f"{first:.0f} ms", "—")
    row(f"checkpoint, 5,000 files, 3 changed ({kind}, median of 5)", f"{statistics.median(times):.0f} ms",
        "≤ 200 ms")
    note = " (after its warm-up)" if warmed else ""
    row(f"checkpoint, 5,000 files, first of the project's next session{note} ({kind})", f"{second:.0f} ms", "—")
    row(f"end_turn after a tool turn, on the event loop ({kind}, median of 5)", f"{statistics.median(ends):.1f} ms",
        "off the loop")
    row(f"next record 100 ms after end_turn ({kind}, median of 5)", f"{statistics.median(nexts):.1f} ms", "µs")


def _reply(text: str = "", calls: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {"text": text, "tool_calls": calls or []}


# The scenarios of bench/bench_headless.py, repeated here so this benchmark does not depend on its internals.
HEADLESS: dict[str, list[dict[str, object]]] = {
    "4-turn": [
        _reply("", [{"name": "Read", "args": {"file_path": "parse.py"}}]),
        _reply("", [{"name": "Edit", "args": {"file_path": "parse.py", "old_string": "+ 1", "new_string": "+ 0",
                                              "replace_all": True}}]),
        _reply("", [{"name": "Bash", "args": {"command": "true"}}]),
        _reply("Fixed."),
    ],
    "one-reply": [_reply("Done.")],
}


def bench_headless(runs: int, sizes: list[int], names: list[str], baseline: str | None, steady: bool) -> None:
    """`-p` runs against the fake server; (wall, CPU) medians per scenario and project size. With `baseline`
    (a directory holding another `agentcli` package) runs alternate between it and this tree, so both see the
    same machine load. Each run gets a fresh AGENTCLI_HOME unless `steady`."""
    import compileall

    variants: dict[str, str | None] = {"baseline": baseline} if baseline else {}
    variants["this tree"] = None
    for entry in [baseline, str(ROOT)]:
        if entry:  # byte-compiled first, as pip does (PYTHONDONTWRITEBYTECODE may be set)
            compileall.compile_dir(str(Path(entry) / "agentcli"), quiet=1)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for n in sizes:
            proj = base / f"proj{n}"
            for i in range(n):
                d = proj / f"pkg{i % 50}" / f"mod{i % 7}"
                d.mkdir(parents=True, exist_ok=True)
                (d / f"file{i}.py").write_text(f"# file {i}\n" + "x = 1\n" * 40)
            proj.mkdir(exist_ok=True)
            for name in names:
                figures = _headless_runs(runs, name, proj, base / f"{name}-{n}", variants, steady)
                home = "same home" if steady else "fresh home"
                for label, (walls, cpus) in figures.items():
                    row(f"-p {name}, {home}, {n:,} extra files, {label} (median of {runs})",
                        f"wall {statistics.median(walls):.0f} ms, CPU {statistics.median(cpus):.0f} ms", "—")
    row("load average (1 min) at start", f"{load:.2f}", "—")


def _headless_runs(runs: int, name: str, proj: Path, base: Path, variants: dict[str, str | None],
                   steady: bool) -> dict[str, tuple[list[float], list[float]]]:
    import json
    import resource

    base.mkdir(parents=True)
    script = base / "script.json"
    script.write_text(json.dumps(HEADLESS[name]))
    server = subprocess.Popen([sys.executable, "-m", "tests.fakes.server", "--script", str(script), "--loop"],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    out: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in variants}
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PYTHONPATH"}
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-bench-000000")
        cmd = [sys.executable, "-m", "agentcli", "-p", "go", "--model", "anthropic/claude-sonnet-4-5",
               "--permission-mode", "bypassPermissions", "--max-turns", "60"]
        order = list(variants.items())
        for k in range(runs):
            for label, path in order[::-1] if k % 2 else order:
                (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")
                run_env = {**env, "AGENTCLI_HOME": str(base / f"home-{label}-{0 if steady else k}")}
                if path:
                    run_env["PYTHONPATH"] = path
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run(cmd, cwd=proj, env=run_env, capture_output=True, check=True)
                out[label][0].append((time.perf_counter() - t) * 1000)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                out[label][1].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    finally:
        server.terminate()
        server.wait(10)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--headless", action="store_true", help="only the -p 4-turn run (see the docstring)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--files", default="0,5000", help="project sizes for --headless, comma-separated")
    ap.add_argument("--scenarios", default="4-turn,one-reply", help="for --headless: 4-turn, one-reply")
    ap.add_argument("--baseline", help="for --headless: a directory with another agentcli package to alternate with")
    ap.add_argument("--steady", action="store_true", help="for --headless: one AGENTCLI_HOME for all runs")
    args = ap.parse_args()
    if args.headless:
        sizes = [int(n) for n in args.files.split(",")]
        bench_headless(args.runs, sizes, args.scenarios.split(","), args.baseline, args.steady)
        _table()
        return
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
    _table()


def _table() -> None:
    print("| sessions benchmark | result | target |\n|---|---|---|")
    for name, value, target in ROWS:
        print(f"| {name} | {value} | {target} |")


if __name__ == "__main__":
    main()
