"""agentcli against Codex CLI, whole process, in one interleaved run (issue 25, acceptance 5; issue 10 before it).

    .venv/bin/python bench/bench_vs_codex.py [--runs 5] [--codex PATH] [--before DIR] [--floor] [--repl]

The acceptance table in one command (Codex installed with `npm install @openai/codex` in /work/codex):

    .venv/bin/python bench/bench_vs_codex.py --runs 7 --floor --repl --codex /work/codex/node_modules/.bin/codex \
        --before DIR_OF_THE_EARLIER_TREE

Scenarios: `--version`; `-p hello` (one reply); a 4-turn Read→Edit→Bash run; a 20,000-token reply streamed one
token per event. agentcli speaks the OpenAI Responses API (`--provider openai-responses`), as Codex does, to the
same fake server (`tests/fakes`, its own process, streams pre-rendered). Codex is pointed at it with a custom
model provider (`[model_providers.fake]`, `wire_api = "responses"`) in a temporary CODEX_HOME; its 4-turn script
does the same work with its own tool (`exec_command`: cat, sed -i, true), since it has no Read or Edit tool.
Both run without approvals or sandbox (`bypassPermissions`, `--dangerously-bypass-approvals-and-sandbox`).

`--before DIR`: also the agentcli package found in DIR (a worktree at an earlier commit), via PYTHONPATH.
`--floor`: also `bench/floor_httpx.py`, the same requests through httpx in a bare script (interpreter, asyncio,
httpx, nothing of agentcli; for `--version`, the interpreter alone): the floor of any httpx-based agentcli.
`--repl`: also the REPL's time from exec to the prompt accepting keys (a key typed into the pseudo-terminal
echoed; `bench/bench_repl.py startup`), for this tree and `--before`, against its absolute target.
Runs are interleaved (after, before, codex, …; which goes first turns each round) so a change in the machine's
load hits all alike; the figures are medians of wall, CPU (user+sys of the process and the children it waited
for) and peak RSS (the largest resident set of the process or any child it waited for, `ru_maxrss`). Codex is
installed into a bench-local prefix: `npm install --prefix bench/.codex @openai/codex` (the default `--codex`), or
anywhere with `--codex`. Prints markdown tables for bench/RESULTS.md: wall ÷ Codex for each scenario and peak
RSS ÷ Codex, each beside its target and the floor's own ratio.
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_headless import PY, ROOT, SCENARIOS, TARGETS, clean_env, fake_server, reply

TARGET = TARGETS["openai-responses"]
CODEX_4TURN = [
    reply("", [{"name": "exec_command", "args": {"cmd": "cat parse.py"}}]),
    reply("", [{"name": "exec_command", "args": {"cmd": "sed -i 's/+ 1/+ 0/g' parse.py"}}]),
    reply("", [{"name": "exec_command", "args": {"cmd": "true"}}]),
    reply("Fixed."),
]
CODEX_SCRIPTS = {"hello": SCENARIOS["one-reply"], "4-turn": CODEX_4TURN, "20k": SCENARIOS["20k"]}
AGENTCLI_SCRIPTS = {"hello": SCENARIOS["one-reply"], "4-turn": SCENARIOS["4-turn"], "20k": SCENARIOS["20k"]}
LABELS = {"version": "`--version`", "hello": "`-p hello`", "4-turn": "4-turn Read→Edit→Bash",
          "20k": "20k-token stream"}
TARGETS_RATIO = {"hello": 0.6, "4-turn": 0.6, "20k": 0.5}  # issue 25: wall time ÷ Codex's
TARGET_RSS = 0.25  # peak RSS ÷ Codex's, every scenario but --version
TARGET_REPL_MS = 150.0  # exec to the prompt accepting keys

Sample = tuple[float, float, float]  # wall s, CPU s, peak RSS MiB
Run = Callable[[], Sample]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    """(wall s, CPU s, peak RSS MiB) of one whole process. Its output goes to files: Codex prints a streamed reply to
    stderr, and a pipe nobody reads until the end would fill and stall it."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if status != 0:
            out.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({status}): {out.read()[-2000:].decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def codex_config(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'model = "gpt-5"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n\n'
        f'[model_providers.fake]\nname = "fake"\nbase_url = "{url}/v1"\nenv_key = "FAKE_KEY"\n'
        'wire_api = "responses"\n\n[analytics]\nenabled = false\n')


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--codex", default=str(ROOT / "bench/.codex/node_modules/.bin/codex"))
    ap.add_argument("--before", type=Path, help="a directory holding an earlier agentcli package")
    ap.add_argument("--floor", action="store_true", help="also the bare-httpx floor (bench/floor_httpx.py)")
    ap.add_argument("--repl", action="store_true", help="also the REPL's exec-to-ready-for-keys time")
    args = ap.parse_args()
    variants = (["after"] + (["before"] if args.before else []) + (["floor"] if args.floor else [])
                + (["codex"] if Path(args.codex).exists() else []))
    for tree in [ROOT] + ([args.before] if args.before else []):
        compileall.compile_dir(tree / "agentcli", quiet=1)
    load0, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results: dict[tuple[str, str], list[Sample]] = {}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj = tmp / "proj"
        proj.mkdir()

        def reset() -> None:
            (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")

        reset()
        base = clean_env(tmp / "home")
        # A HOME with no shell profile, for both: Codex runs commands in a login shell, and this machine's
        # ~/.profile (pyenv init) adds ~0.7 s to each; that is this machine, not Codex.
        base["HOME"] = str(tmp / "user")
        (tmp / "user").mkdir()
        envs = {"after": {**base, "PYTHONPATH": str(ROOT)}}
        if args.before:
            envs["before"] = {**base, "PYTHONPATH": str(args.before.resolve())}
        envs["codex"] = {**base, "CODEX_HOME": str(tmp / "codex"), "FAKE_KEY": "sk-bench-000000"}
        envs["floor"] = base
        codex_config(tmp / "codex", "http://127.0.0.1:9")

        def cmd(variant: str, scenario: str) -> list[str]:
            if variant == "floor":
                if scenario == "version":
                    return [PY, "-c", "pass"]
                return [PY, str(ROOT / "bench" / "floor_httpx.py"), "4" if scenario == "4-turn" else "1"]
            if variant == "codex":
                if scenario == "version":
                    return [args.codex, "--version"]
                return [args.codex, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                        "hello" if scenario == "hello" else "go"]
            if scenario == "version":
                return [PY, "-m", "agentcli", "--version"]
            return [PY, "-m", "agentcli", "-p", "hello" if scenario == "hello" else "go", *TARGET.args,
                    "--permission-mode", "bypassPermissions", "--max-turns", "60"]

        def measure(scenario: str, env_for: dict[str, dict[str, str]]) -> None:
            for i in range(args.runs):
                # which variant goes first turns with each round: with a fixed order the first one always ran
                # right after Codex's process tree (still exiting) and paid for it in wall time on a busy machine
                for v in variants[i % len(variants):] + variants[:i % len(variants)]:
                    reset()
                    results.setdefault((scenario, v), []).append(timed(cmd(v, scenario), proj, env_for[v]))

        measure("version", envs)
        (tmp / "a").mkdir()
        (tmp / "c").mkdir()
        for scenario in ("hello", "4-turn", "20k"):
            with fake_server(AGENTCLI_SCRIPTS[scenario], tmp / "a", TARGET) as url_a, \
                    fake_server(CODEX_SCRIPTS[scenario], tmp / "c", TARGET) as url_c:
                codex_config(tmp / "codex", url_c)
                env_for = {v: ({**e, **TARGET.env(url_a)} if v != "codex" else e) for v, e in envs.items()}
                measure(scenario, env_for)
    report(results, variants, args.runs, started, load0)
    if args.repl:
        report_repl(args.runs, args.before)
    return 0


def report(results: dict[tuple[str, str], list[Sample]], variants: list[str], runs: int,
           started: str, load0: tuple[float, float, float]) -> None:
    def med(scenario: str, v: str, i: int) -> float:
        return statistics.median(r[i] for r in results[(scenario, v)]) * (1000 if i < 2 else 1)

    print(f"{started}, median of {runs} interleaved runs, load average at start {load0[0]:.2f} {load0[1]:.2f} "
          f"{load0[2]:.2f}, at end {os.getloadavg()[0]:.2f}\n")
    others = [v for v in variants if v != "codex"]
    head = " | ".join(f"{v} wall / CPU (ms)" for v in variants)
    ratio = " | ".join(f"{v} ÷ codex" for v in others) if "codex" in variants else ""
    print(f"| scenario | {head} |" + (f" {ratio} | target |" if ratio else ""))
    print("|---" * (1 + len(variants) + (len(others) + 1 if ratio else 0)) + "|")
    for scenario in ("version", "hello", "4-turn", "20k"):
        cells = " | ".join(f"{med(scenario, v, 0):.0f} / {med(scenario, v, 1):.0f}" for v in variants)
        line = f"| {LABELS[scenario]} | {cells} |"
        if ratio:
            c = med(scenario, "codex", 0)
            rs = " | ".join(f"{med(scenario, v, 0) / c:.2f}×" for v in others)
            target = f"≤ {TARGETS_RATIO[scenario]}×" if scenario in TARGETS_RATIO else "—"
            line += f" {rs} | {target} |"
        print(line)
    print(f"\n| peak RSS (MiB) | {' | '.join(variants)} |" + (f" {ratio} | target |" if ratio else ""))
    print("|---" * (1 + len(variants) + (len(others) + 1 if ratio else 0)) + "|")
    for scenario in ("hello", "4-turn", "20k"):
        line = f"| {LABELS[scenario]} | " + " | ".join(f"{med(scenario, v, 2):.0f}" for v in variants) + " |"
        if ratio:
            c = med(scenario, "codex", 2)
            line += " " + " | ".join(f"{med(scenario, v, 2) / c:.2f}×" for v in others) + f" | ≤ {TARGET_RSS}× |"
        print(line)


def report_repl(runs: int, before: Path | None) -> None:
    """The REPL's exec-to-ready time (a typed key echoed) for this tree and `before`, alternately."""
    from bench.bench_repl import bench_startup

    trees = [("after", ROOT)] + ([("before", before.resolve())] if before else [])
    got: dict[str, list[dict[str, float]]] = {}
    for i in range(runs):
        for name, tree in trees[i % len(trees):] + trees[:i % len(trees)]:  # the first turns, as in `measure`
            got.setdefault(name, []).append(bench_startup(1, tree))
    print(f"\n| REPL, exec to ready for keys (ms, median of {runs}) | "
          + " | ".join(name for name, _ in trees) + " | target |")
    print("|---" * (2 + len(trees)) + "|")
    for key, label in (("prompt_ms", "prompt drawn"), ("first_key_ms", "first key echoed")):
        cells = " | ".join(f"{statistics.median(r[key] for r in got[name]):.0f}" for name, _ in trees)
        print(f"| {label} | {cells} | {f'≤ {TARGET_REPL_MS:.0f}' if key == 'first_key_ms' else '—'} |")


if __name__ == "__main__":
    raise SystemExit(main())
