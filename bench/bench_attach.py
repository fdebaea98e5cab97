"""`agentcli -p hello --attach URL` against a warm `agentcli serve`, beside agentcli's and Codex CLI's cold
`-p hello`, in one interleaved run (issue 30, acceptance 3: attach ≤ 0.2× Codex's cold run).

    .venv/bin/python bench/bench_attach.py [--runs 5] [--codex PATH]

The same fake server (tests/fakes, its own process, the Responses API, as bench_vs_codex.py) answers all three;
the server is started once (warm) before the runs. Codex is measured when installed
(`npm install --prefix bench/.codex @openai/codex`, the default `--codex`). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_headless import PY, ROOT, SCENARIOS, clean_env, fake_server
from bench.bench_vs_codex import TARGET, codex_config, timed


def start_server(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([PY, "-m", "agentcli", "serve", "--port", "0", *TARGET.args], cwd=cwd, env=env,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "listening on " in line:
            return proc, line.split("listening on ", 1)[1].strip()
    raise SystemExit("agentcli serve did not start")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--codex", default=str(ROOT / "bench/.codex/node_modules/.bin/codex"))
    args = ap.parse_args()
    have_codex = Path(args.codex).exists()
    results: dict[str, list[tuple[float, float]]] = {}
    load0, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        proj, user = tmp / "proj", tmp / "user"
        proj.mkdir()
        user.mkdir()
        base = {**clean_env(tmp / "home"), "HOME": str(user), "PYTHONPATH": str(ROOT)}
        (tmp / "a").mkdir()
        with fake_server(SCENARIOS["one-reply"], tmp / "a", TARGET) as url:
            env = {**base, **TARGET.env(url)}
            codex_config(tmp / "codex", url)
            server, attach_url = start_server(env, proj)
            try:
                thin = {k: v for k, v in base.items()}  # the client: no provider set up at all
                cmds = {
                    "attach": ([PY, "-m", "agentcli", "-p", "hello", "--attach", attach_url], thin),
                    "agentcli cold": ([PY, "-m", "agentcli", "-p", "hello", *TARGET.args,
                                       "--permission-mode", "bypassPermissions"], env),
                }
                if have_codex:
                    cmds["codex cold"] = ([args.codex, "exec", "--skip-git-repo-check",
                                           "--dangerously-bypass-approvals-and-sandbox", "hello"],
                                          {**base, "CODEX_HOME": str(tmp / "codex"), "FAKE_KEY": "sk-bench-000000"})
                for _ in range(args.runs):
                    for name, (cmd, e) in cmds.items():
                        results.setdefault(name, []).append(timed(cmd, proj, e))
            finally:
                server.terminate()
                server.wait(10)
    print(f"{started}, median of {args.runs} interleaved runs, load average {load0[0]:.2f} at start, "
          f"{os.getloadavg()[0]:.2f} at end\n")
    print("| `-p hello` | wall (ms) | CPU (ms) | ÷ codex cold |")
    print("|---|---|---|---|")
    codex = statistics.median(r[0] for r in results["codex cold"]) if have_codex else None
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        ratio = f"{wall / codex:.2f}×" if codex else "—"
        print(f"| {name} | {wall * 1000:.0f} | {cpu * 1000:.0f} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
