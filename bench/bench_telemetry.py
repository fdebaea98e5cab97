"""What telemetry costs (issue 19: ≤ 5 % CPU on a 20k-token streamed reply, ≤ 30 ms on a `-p` run's exit).

In process: the CPU of importing and setting up the SDK (done on a thread while a run starts; what a `-p` run
has already loaded, httpx and the agent, is loaded first), of the recorder
for 20,000 streamed deltas, and the wall time of `close()` (the flush a run's exit waits for) against a local
collector, a slow one (answers after 5 s) and an unreachable one (a closed port).

Whole process: a 20,000-token `-p` run, a one-reply `-p` run (the fake answers at once) and one whose answer
starts 300 ms after the request (as a real API's does), telemetry off / on (traces and metrics) / on
with traces only (`OTEL_METRICS_EXPORTER=none`), exporting to a local OTLP/HTTP sink, interleaved (one of each
in turn, so a change in the machine's load hits all variants alike). CPU is the process's user + system time;
"+CPU" is the median of the per-round differences against the off run of the same round. `--tree DIR`
(repeatable) adds the variant "on" run from another checkout (e.g. the previous implementation: `git archive <rev>
agentcli | tar -x -C DIR`). "1st req": process start → the fake got the run's request (what starting telemetry's
import early costs a run whose answer takes a while).

    .venv/bin/python -m bench.bench_telemetry --runs 9 [--tree DIR]
"""

from __future__ import annotations

import argparse
import compileall
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.bench_headless import PY, ROOT, SCENARIOS, TARGETS, arrivals, clean_env, fake_server, reply

# a reply that, like a real API's, starts 300 ms after the request (the SDK's import overlaps that wait)
WAITED = [reply("Done.", fault={"kind": "slow_first_byte", "delay_s": 0.3})]


def sink(delay_s: float = 0.0) -> ThreadingHTTPServer:
    """A local OTLP/HTTP collector that takes everything (after `delay_s`)."""

    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if delay_s:
                time.sleep(delay_s)
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _recorder(url: str) -> tuple[Any, float]:
    """A recorder exporting to `url`, built as a run builds it, and the CPU seconds that took."""
    from agentcli.telemetry.setup import make_recorder

    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = url
    c0 = time.process_time()
    rec, _ = make_recorder(lambda m, u: 0.0, log_prompts=False, redact=lambda s: s)
    rec._thread.join()
    return rec, time.process_time() - c0


def _one_run(rec: Any, deltas: int) -> float:
    """Feed a run of `deltas` streamed text deltas; the CPU seconds the deltas took."""
    from agentcli.core.events import AssistantMessage, RunFinished, RunResult, SessionStarted, TextDelta, TurnStarted
    from agentcli.llm.messages import Message, Usage

    rec.feed(SessionStarted("s", "/", "m", "p", (), "default"))
    rec.feed(TurnStarted(1))
    delta = TextDelta("tok ")
    c0 = time.process_time()
    for _ in range(deltas):
        rec.feed(delta)
    cpu = time.process_time() - c0
    rec.feed(AssistantMessage(Message("assistant", ()), Usage(10, deltas), "m", "end_turn"))
    rec.feed(RunFinished(RunResult("success", False, "ok", "s", 1, 1, 1, 0.0, Usage(10, deltas))))
    return cpu


def _closed(rec: Any) -> float:
    t0 = time.perf_counter()
    rec.close()
    return (time.perf_counter() - t0) * 1000


def in_process() -> None:
    # what a `-p` run has loaded before telemetry starts (so the set-up figure is telemetry's own)
    import anyio._backends._asyncio  # noqa: F401
    import httpcore._async.http11  # noqa: F401


    local, slow = sink(), sink(5.0)
    rec, setup = _recorder(f"http://127.0.0.1:{local.server_port}")
    delta_cpu = _one_run(rec, 20_000)
    print(f"in process: SDK import + setup {setup * 1000:.0f} ms CPU (on a thread); 20,000 deltas "
          f"{delta_cpu * 1000:.1f} ms CPU; close() to a local collector {_closed(rec):.1f} ms wall")
    closes: dict[str, list[float]] = {"local": [], "slow (5 s)": [], "unreachable": []}
    urls: dict[str, Callable[[], str]] = {
        "local": lambda: f"http://127.0.0.1:{local.server_port}",
        "slow (5 s)": lambda: f"http://127.0.0.1:{slow.server_port}",
        "unreachable": lambda: f"http://127.0.0.1:{closed_port()}",
    }
    for _ in range(5):
        for name, url in urls.items():
            rec, _ = _recorder(url())
            _one_run(rec, 10)
            closes[name].append(_closed(rec))
    print("close() wall, median of 5: " + "; ".join(f"{k} {statistics.median(v):.1f} ms (max {max(v):.1f})"
                                                     for k, v in closes.items()))
    local.shutdown()
    slow.shutdown()


def timed(cmd: list[str], cwd: Path, env: dict[str, str], url: str) -> tuple[float, float, float, float]:
    """(wall, CPU, result line → exit, start → first request) seconds of one whole `-p --output-format json`
    process: the third is what the run's exit costs after its answer is out (closing the session and provider,
    telemetry's last export); the last, when the fake (at `url`) got the run's request."""
    t_spawn = time.time()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    t_result = time.perf_counter()
    _, status, usage = os.wait4(proc.pid, 0)
    t_exit = time.perf_counter()
    err = proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    if status != 0 or not line.startswith(b'{"type":"result"'):
        raise SystemExit(f"{' '.join(cmd)} failed ({status}): {err}")
    first = min(t for t in arrivals(url) if t >= t_spawn) - t_spawn
    return t_exit - t0, usage.ru_utime + usage.ru_stime, t_exit - t_result, first


def whole_process(runs: int, trees: list[Path]) -> None:
    collector = sink()
    otel = {"AGENTCLI_ENABLE_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}"}
    variants: dict[str, dict[str, str]] = {"off": {}, "on": otel, "on, traces only": {**otel,
                                                                                      "OTEL_METRICS_EXPORTER": "none"}}
    for tree in trees:
        compileall.compile_dir(tree / "agentcli", quiet=1)
        variants[f"on ({tree.name})"] = {**otel, "PYTHONPATH": str(tree)}
    target = TARGETS["anthropic"]
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        (tmp / "proj").mkdir()
        for scenario, script in (("20k", SCENARIOS["20k"]), ("one-reply", SCENARIOS["one-reply"]),
                                 ("one-reply, first byte after 300 ms", WAITED)):
            with fake_server(script, tmp, target) as url:
                env = {**clean_env(tmp / "home"), **target.env(url)}
                cmd = [PY, "-m", "agentcli", "-p", "go", *target.args, "--no-session-persistence",
                       "--output-format", "json"]
                got: dict[str, list[tuple[float, float, float, float]]] = {v: [] for v in variants}
                for _ in range(runs):
                    for name, extra in variants.items():
                        got[name].append(timed(cmd, tmp / "proj", {**env, **extra}, url))
            _report(scenario, got)
    collector.shutdown()


def _report(scenario: str, got: dict[str, list[tuple[float, float, float, float]]]) -> None:
    off = got["off"]
    print(f"\n{scenario}: medians; +X = median of the per-round differences against off; exit = result line → exit;"
          " 1st req = process start → the fake got the request")
    for name, xs in got.items():
        wall, cpu, ex, first = (statistics.median(x[i] for x in xs) for i in range(4))
        line = (f"  {name:>22}: {wall * 1000:5.0f} ms wall / {cpu * 1000:4.0f} ms CPU / exit {ex * 1000:4.1f} ms"
                f" / 1st req {first * 1000:4.0f} ms")
        if name != "off":
            d_wall, d_cpu, d_exit, d_first = (statistics.median(x[i] - o[i] for x, o in zip(xs, off, strict=True))
                                              for i in range(4))
            line += (f"; +CPU {d_cpu * 1000:4.0f} ms ({d_cpu / statistics.median(o[1] for o in off) * 100:+.1f} %)"
                     f", +exit {d_exit * 1000:5.1f} ms, +wall {d_wall * 1000:4.0f} ms"
                     f", +1st req {d_first * 1000:4.0f} ms")
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--tree", type=Path, action="append", default=[],
                    help="also run the `on` variant from the agentcli package in this directory (repeatable)")
    ap.add_argument("--skip-in-process", action="store_true")
    args = ap.parse_args()
    compileall.compile_dir(ROOT / "agentcli", quiet=1)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; runs {args.runs}; load {os.getloadavg()[0]:.2f}")
    if not args.skip_in_process:
        in_process()
    whole_process(args.runs, [t.resolve() for t in args.tree])
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
