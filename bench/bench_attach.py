"""`agentcli -p hello --attach URL` against a warm `agentcli serve`, beside agentcli's and Codex CLI's cold
`-p hello`, in one interleaved run (issue 30, acceptance 3: attach ≤ 0.2× Codex's cold run).

    .venv/bin/python bench/bench_attach.py [--runs 7] [--codex PATH] [--before DIR] [--phases 20]

The same fake server (tests/fakes, its own process, the Responses API, as bench_vs_codex.py) answers every
variant; each `agentcli serve` is started once before the runs and waited for (it warms itself at start), and
the clients find its token in agentcli's home, as on one machine. Variants, interleaved run by run so a change
in the machine's load hits all alike:

- `attach`: this tree's thin client against this tree's server;
- `attach before` (`--before DIR`, a tree of an earlier commit, via PYTHONPATH): that tree's client and server;
- `agentcli cold`: this tree's `-p hello` without a server; `codex cold`: `codex exec` (when installed:
  `npm install --prefix bench/.codex @openai/codex`, the default `--codex`);
- `python -c pass`: the interpreter's own start, the floor under any Python client.

agentcli runs as the `agentcli` command the acceptance names (this venv's console script; `--before` puts the
earlier tree first on its path), not `python -m agentcli`, whose runpy adds ~35 M instructions (a quarter of
an attached run) that an installed `agentcli` does not pay.

Then the server's side of an attached run (`--phases` runs from this process, through the thin client itself,
one request each): from the request to the turn's first line (the session opened, the turn started), and on to
its result line (after which the server ends the session itself). Prints markdown tables.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_headless import PY, ROOT, SCENARIOS, clean_env, fake_server
from bench.bench_vs_codex import TARGET, Sample, codex_config, timed

AGENTCLI = str(Path(PY).with_name("agentcli"))  # the console script installed beside this interpreter


@contextmanager
def serving(env: dict[str, str], cwd: Path) -> Iterator[str]:
    """A started (and warmed) `agentcli serve` on a free loopback port; its URL."""
    proc = subprocess.Popen([PY, "-m", "agentcli", "serve", "--port", "0", *TARGET.args], cwd=cwd, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "listening on " in line:
                yield line.split("listening on ", 1)[1].strip()
                return
        raise SystemExit("agentcli serve did not start")
    finally:
        proc.terminate()
        proc.wait(10)


def phases(url: str, cwd: Path, runs: int) -> dict[str, list[float]]:
    """Milliseconds per step of `runs` attached `hello` turns, seen from a client that is already running."""
    from agentcli.server.attach import Attached, deny
    from agentcli.server.token import read_token

    out: dict[str, list[float]] = {}
    for _ in range(runs):
        client = Attached(url, read_token())
        t0 = time.perf_counter()
        first = None
        for _line in client.run(str(cwd), None, "hello", deny):
            first = first or time.perf_counter()
        t2 = time.perf_counter()
        assert first is not None
        for name, took in (("the request to the turn's first line (the session opened)", first - t0),
                           ("first line to the result line", t2 - first), ("all", t2 - t0)):
            out.setdefault(name, []).append(took * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--codex", default=str(ROOT / "bench/.codex/node_modules/.bin/codex"))
    ap.add_argument("--before", type=Path, help="a directory holding an earlier agentcli package")
    ap.add_argument("--phases", type=int, default=20, help="attached turns timed step by step (0: none)")
    args = ap.parse_args()
    have_codex = Path(args.codex).exists()
    for tree in [ROOT] + ([args.before] if args.before else []):
        compileall.compile_dir(tree / "agentcli", quiet=1)
    results: dict[str, list[Sample]] = {}
    load0, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj, user = tmp / "proj", tmp / "user"
        proj.mkdir()
        user.mkdir()
        # a HOME with no shell profile for every variant (see bench_vs_codex.py)
        base = {**clean_env(tmp / "home"), "HOME": str(user)}
        after = {**base, "PYTHONPATH": str(ROOT)}
        before = {**base, "PYTHONPATH": str(args.before.resolve())} if args.before else None
        (tmp / "a").mkdir()
        with fake_server(SCENARIOS["one-reply"], tmp / "a", TARGET) as url:
            codex_config(tmp / "codex", url)
            with serving({**after, **TARGET.env(url)}, proj) as attach_url, \
                    (serving({**before, **TARGET.env(url)}, proj) if before else _nothing()) as before_url:
                # the clients: no provider set up at all, only the server could answer
                cmds: dict[str, tuple[list[str], dict[str, str]]] = {
                    "attach": ([AGENTCLI, "-p", "hello", "--attach", attach_url], after)}
                if before is not None and before_url:
                    cmds["attach before"] = ([AGENTCLI, "-p", "hello", "--attach", before_url], before)
                cmds["agentcli cold"] = ([AGENTCLI, "-p", "hello", *TARGET.args, "--permission-mode",
                                          "bypassPermissions"], {**after, **TARGET.env(url)})
                if have_codex:
                    cmds["codex cold"] = ([args.codex, "exec", "--skip-git-repo-check",
                                           "--dangerously-bypass-approvals-and-sandbox", "hello"],
                                          {**base, "CODEX_HOME": str(tmp / "codex"), "FAKE_KEY": "sk-bench-000000"})
                cmds["python -c pass"] = ([PY, "-c", "pass"], base)
                for _ in range(args.runs):
                    for name, (cmd, env) in cmds.items():
                        results.setdefault(name, []).append(timed(cmd, proj, env))
                load1 = os.getloadavg()
                os.environ["AGENTCLI_HOME"] = str(tmp / "home")
                # this tree's server only: an earlier one may not stream a prompt's answer
                steps = {"after": phases(attach_url, proj, args.phases)} if args.phases else {}
    print(f"{started}, median of {args.runs} interleaved runs, load average {load0[0]:.2f} at start, "
          f"{load1[0]:.2f} at end\n")
    _report(results, have_codex)
    if steps:
        _report_steps(steps)
    return 0


@contextmanager
def _nothing() -> Iterator[str]:
    yield ""


def _report(results: dict[str, list[Sample]], have_codex: bool) -> None:
    codex = statistics.median(r[0] for r in results["codex cold"]) if have_codex else None
    print("| `-p hello` | wall (ms) | min wall (ms) | CPU (ms) | ÷ codex cold (median wall) | target |")
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        ratio = f"{wall / codex:.2f}×" if codex else "—"
        target = ("≤ 0.2× — " + ("met" if codex and wall <= 0.2 * codex else "**not met**")) \
            if name.startswith("attach") and codex else ""
        print(f"| {name} | {wall * 1000:.0f} | {min(r[0] for r in runs) * 1000:.0f} | {cpu * 1000:.0f} | "
              f"{ratio} | {target} |")


def _report_steps(steps: dict[str, dict[str, list[float]]]) -> None:
    trees = list(steps)
    print(f"\nThe server's side, {len(next(iter(steps.values()))['all'])} attached turns each (ms, median / first):\n")
    print("| step | " + " | ".join(trees) + " |")
    print("|---|" + "---|" * len(trees))
    for name in steps[trees[0]]:
        cells = [f"{statistics.median(steps[t][name]):.1f} / {steps[t][name][0]:.1f}" for t in trees]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
