"""Headless performance (issue 2): whole-process wall time and peak memory of `agentcli` against the fake LLM
server running as its own process, median of N runs.

    .venv/bin/python bench/bench_headless.py [--runs 5] [--providers anthropic,openai]

Scenarios: `--version`, `--help`, a one-reply `-p` run, a 4-turn Read→Edit→Bash run, a 20,000-token reply
streamed one token per event (`-p`, text output), and a 50-turn run of small Reads (harness overhead per turn =
(t50 − t1) / 49). Prints a markdown table for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

MODELS = {"anthropic": "anthropic/claude-sonnet-4-5", "openai": "openai/gpt-4.1"}


def reply(text: str = "", calls: list[dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
    return {"text": text, "tool_calls": calls or [], **kw}


def scenarios(work: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        "one-reply": [reply("Done.")],
        "4-turn Read→Edit→Bash": [
            reply("", [{"name": "Read", "args": {"file_path": "parse.py"}}]),
            reply("", [{"name": "Edit", "args": {"file_path": "parse.py", "old_string": "+ 1", "new_string": "+ 0",
                                                 "replace_all": True}}]),
            reply("", [{"name": "Bash", "args": {"command": "true"}}]),
            reply("Fixed."),
        ],
        "20k-token reply": [reply(pieces=["tok "] * 20_000, burst=True, usage={"input_tokens": 10,
                                                                              "output_tokens": 20_000})],
        "50 turns of Read": [reply("", [{"name": "Read", "args": {"file_path": "small.txt"}}])] * 49
        + [reply("Read it all.")],
    }


@contextmanager
def fake_server(script: list[dict[str, Any]], tmp: Path) -> Iterator[str]:
    path = tmp / "script.json"
    path.write_text(json.dumps(script))
    proc = subprocess.Popen([PY, "-m", "tests.fakes.server", "--script", str(path), "--loop"], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(10)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{' '.join(cmd)} failed ({status}): {err}")
    return wall, usage.ru_maxrss / 1024


def median_of(n: int, cmd: list[str], cwd: Path, env: dict[str, str], reset: Any = None) -> tuple[float, float]:
    walls, rss = [], []
    for _ in range(n):
        if reset:
            reset()
        w, r = timed(cmd, cwd, env)
        walls.append(w)
        rss.append(r)
    return statistics.median(walls), max(rss)


def env_for(provider: str, url: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["AGENTCLI_HOME"] = str(home)
    if provider == "anthropic":
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-bench-000000")
    else:
        env.update(OPENAI_BASE_URL=url + "/v1", OPENAI_API_KEY="sk-bench-000000")
    return env


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--providers", default="anthropic,openai")
    args = ap.parse_args()
    rows: list[tuple[str, str, float, float]] = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj = tmp / "proj"
        proj.mkdir()
        (proj / "small.txt").write_text("hello\n" * 20)

        def reset() -> None:
            (proj / "parse.py").write_text("def parse(t):\n    return int(t) + 1\n")

        reset()
        base_env = {**os.environ, "AGENTCLI_HOME": str(tmp / "home")}
        for flag in ("--version", "--help"):
            w, r = median_of(args.runs, [PY, "-m", "agentcli", flag], proj, base_env)
            rows.append((f"agentcli {flag}", "-", w, r))
        for provider in args.providers.split(","):
            for name, script in scenarios(proj).items():
                with fake_server(script, tmp) as url:
                    cmd = [PY, "-m", "agentcli", "-p", "go", "--model", MODELS[provider],
                           "--permission-mode", "bypassPermissions", "--max-turns", "60"]
                    w, r = median_of(args.runs, cmd, proj, env_for(provider, url, tmp / "home"), reset)
                rows.append((name, provider, w, r))
    print("| scenario | provider | median wall (s) | peak RSS (MiB) |")
    print("|---|---|---|---|")
    for name, provider, w, r in rows:
        print(f"| {name} | {provider} | {w:.3f} | {r:.0f} |")
    for provider in args.providers.split(","):
        t1 = next(w for n, p, w, _ in rows if p == provider and n == "one-reply")
        t50 = next(w for n, p, w, _ in rows if p == provider and n == "50 turns of Read")
        print(f"\nharness overhead per turn ({provider}): {(t50 - t1) / 49 * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
