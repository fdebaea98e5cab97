"""Headless performance (issues 2 and 3): whole-process time, CPU and peak memory of `agentcli` against the fake
LLM server running as its own process, median of N runs, for every provider.

    .venv/bin/python bench/bench_headless.py [--runs 5] [--providers anthropic,openai,openai-responses,google,ollama]
                                             [--scenarios one-reply,4-turn,20k,50-turn]

Scenarios: `--version`, `--help`, a one-reply `-p` run, a 4-turn Read→Edit→Bash run, a 20,000-token reply
streamed one token per event (`-p`, text output), and a 50-turn run of small Reads. Harness overhead per turn =
(t50 − t1) / 49, from wall time and from CPU time, as the median over pairs of one-reply and 50-turn runs made
alternately (separate medians are too noisy on a shared machine for a difference of a few ms). The one-reply
run also gives "process start to first request byte": a timestamp taken just before spawning the process,
against the arrival time the fake server records for the run's first request (`GET /_fake/arrivals`).

The package is byte-compiled first (`compileall`), as `pip install` does: this environment sets
PYTHONDONTWRITEBYTECODE, and without .pyc files every run would also compile every module (~80 ms here).
The fake pre-renders its streams (`--prerender`), so its own work is not part of what is measured.
Prints markdown tables for bench/RESULTS.md.
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
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


@dataclass(frozen=True)
class Target:
    """How to run agentcli against the fake for one provider."""

    args: tuple[str, ...]  # --model / --provider
    stream_path: str  # the streaming endpoint, pre-rendered by the fake
    env: Callable[[str], dict[str, str]]  # fake base URL → environment


TARGETS: dict[str, Target] = {
    "anthropic": Target(("--model", "anthropic/claude-sonnet-4-5"), "/v1/messages",
                        lambda url: {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-bench-000000"}),
    "openai": Target(("--model", "openai/gpt-4.1"), "/v1/chat/completions",
                     lambda url: {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "sk-bench-000000"}),
    "openai-responses": Target(("--provider", "openai-responses", "--model", "gpt-5"), "/v1/responses",
                               lambda url: {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "sk-bench-000000"}),
    "google": Target(("--model", "google/gemini-2.5-flash"),
                     "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                     lambda url: {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "bench-key-000000"}),
    "ollama": Target(("--model", "ollama/llama-fake"), "/api/chat", lambda url: {"OLLAMA_HOST": url}),
}


def reply(text: str = "", calls: list[dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
    return {"text": text, "tool_calls": calls or [], **kw}


SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "one-reply": [reply("Done.")],
    "4-turn": [
        reply("", [{"name": "Read", "args": {"file_path": "parse.py"}}]),
        reply("", [{"name": "Edit", "args": {"file_path": "parse.py", "old_string": "+ 1", "new_string": "+ 0",
                                             "replace_all": True}}]),
        reply("", [{"name": "Bash", "args": {"command": "true"}}]),
        reply("Fixed."),
    ],
    "20k": [reply(pieces=["tok "] * 20_000, burst=True, usage={"input_tokens": 10, "output_tokens": 20_000})],
    "50-turn": [reply("", [{"name": "Read", "args": {"file_path": "small.txt"}}])] * 49 + [reply("Read it all.")],
}
LABELS = {"one-reply": "one-reply run", "4-turn": "4-turn Read→Edit→Bash", "20k": "20k-token reply, text output",
          "50-turn": "50 turns of Read"}


@dataclass
class Figures:
    wall: float  # median seconds
    cpu: float  # median user+sys seconds of the agentcli process
    rss: float  # max peak RSS, MiB
    first_byte: float | None = None  # median seconds from spawn to the first request's arrival


@contextmanager
def fake_server(script: list[dict[str, Any]], tmp: Path, target: Target) -> Iterator[str]:
    path = tmp / "script.json"
    path.write_text(json.dumps(script))
    cmd = [PY, "-m", "tests.fakes.server", "--script", str(path), "--loop", "--prerender", target.stream_path]
    if target.stream_path == "/api/chat":
        cmd.append("--ollama")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(10)


def arrivals(url: str) -> list[float]:
    with urllib.request.urlopen(url + "/_fake/arrivals", timeout=10) as resp:
        return [float(a["received_at"]) for a in json.load(resp)]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB, time.time() at spawn) of one whole process."""
    t_spawn = time.time()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status}): {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, t_spawn


def measure(n: int, cmd: list[str], cwd: Path, env: dict[str, str], reset: Callable[[], None] | None = None,
            url: str | None = None) -> Figures:
    walls, cpus, rss, first = [], [], [], []
    for _ in range(n):
        if reset:
            reset()
        w, c, r, t_spawn = timed(cmd, cwd, env)
        walls.append(w)
        cpus.append(c)
        rss.append(r)
        if url is not None:
            first.append(min(t for t in arrivals(url) if t >= t_spawn) - t_spawn)
    return Figures(statistics.median(walls), statistics.median(cpus), max(rss),
                   statistics.median(first) if first else None)


def per_turn(n: int, target: Target, proj: Path, tmp: Path, base_env: dict[str, str],
             reset: Callable[[], None]) -> tuple[float, float]:
    """Harness overhead per turn, (wall, CPU) seconds: one-reply and 50-turn runs alternate (a change in the
    machine's load then hits both alike) and the median of the paired differences is divided by 49."""
    cmd = [PY, "-m", "agentcli", "-p", "go", *target.args, "--permission-mode", "bypassPermissions",
           "--max-turns", "60"]
    walls, cpus = [], []
    (tmp / "one").mkdir(exist_ok=True)
    (tmp / "fifty").mkdir(exist_ok=True)
    with fake_server(SCENARIOS["one-reply"], tmp / "one", target) as url1, \
            fake_server(SCENARIOS["50-turn"], tmp / "fifty", target) as url50:
        for _ in range(n):
            reset()
            w1, c1, _, _ = timed(cmd, proj, {**base_env, **target.env(url1)})
            w50, c50, _, _ = timed(cmd, proj, {**base_env, **target.env(url50)})
            walls.append((w50 - w1) / 49)
            cpus.append((c50 - c1) / 49)
    return statistics.median(walls), statistics.median(cpus)


def clean_env(home: Path) -> dict[str, str]:
    drop = ("_API_KEY", "_BASE_URL", "OLLAMA_HOST")
    env = {k: v for k, v in os.environ.items() if not k.endswith(drop)}
    env["AGENTCLI_HOME"] = str(home)
    return env


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--providers", default=",".join(TARGETS))
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--tree", type=Path, help="run the agentcli package found in this directory instead (e.g. an "
                    "earlier version unpacked with `git archive <rev> agentcli | tar -x -C DIR`), for comparisons")
    args = ap.parse_args()
    tree = args.tree.resolve() if args.tree else ROOT
    compileall.compile_dir(tree / "agentcli", quiet=1)
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[tuple[str, str, Figures]] = []
    overhead: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj = tmp / "proj"
        proj.mkdir()
        (proj / "small.txt").write_text("hello\n" * 20)

        def reset() -> None:
            (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")

        reset()
        base_env = clean_env(tmp / "home")
        if args.tree:
            base_env["PYTHONPATH"] = str(tree)
        for flag in ("--version", "--help"):
            rows.append((f"agentcli {flag}", "-", measure(args.runs, [PY, "-m", "agentcli", flag], proj, base_env)))
        for provider in args.providers.split(","):
            target = TARGETS[provider]
            for name in args.scenarios.split(","):
                with fake_server(SCENARIOS[name], tmp, target) as url:
                    cmd = [PY, "-m", "agentcli", "-p", "go", *target.args,
                           "--permission-mode", "bypassPermissions", "--max-turns", "60"]
                    env = {**base_env, **target.env(url)}
                    figs = measure(args.runs, cmd, proj, env, reset, url if name == "one-reply" else None)
                rows.append((LABELS[name], provider, figs))
            if "50-turn" in args.scenarios.split(","):
                overhead[provider] = per_turn(args.runs, target, proj, tmp, base_env, reset)
    print(f"agentcli from {tree}")
    print(f"{started}, median of {args.runs}, load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"at end {os.getloadavg()[0]:.2f}\n")
    print("| scenario | provider | wall (ms) | CPU (ms) | peak RSS (MiB) | start → first request byte (ms) |")
    print("|---|---|---|---|---|---|")
    for name, provider, f in rows:
        fb = f"{f.first_byte * 1000:.0f}" if f.first_byte is not None else ""
        print(f"| {name} | {provider} | {f.wall * 1000:.0f} | {f.cpu * 1000:.0f} | {f.rss:.0f} | {fb} |")
    if overhead:
        print("\nHarness overhead per turn = median over paired runs of (50-turn − one-reply) / 49:\n")
        print("| provider | wall (ms) | CPU (ms) |")
        print("|---|---|---|")
        for provider, (w, c) in overhead.items():
            print(f"| {provider} | {w * 1000:.1f} | {c * 1000:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
