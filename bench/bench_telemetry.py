"""What telemetry costs. In-process: the recorder's CPU for 20,000 streamed deltas, the import of the SDK (done
on a thread at start-up) and `close()` (the flush a run's exit waits for). Whole process: a 20,000-token `-p`
run and a one-reply `-p` run with telemetry off and on (exporting to a local OTLP/HTTP sink), interleaved.

    .venv/bin/python -m bench.bench_telemetry --runs 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.bench_headless import PY, SCENARIOS, TARGETS, clean_env, fake_server, timed


class _Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def in_process(url: str) -> None:
    import time

    from agentcli.core.events import AssistantMessage, RunFinished, RunResult, SessionStarted, TextDelta, TurnStarted
    from agentcli.llm.messages import Message, Usage
    from agentcli.telemetry.setup import _build

    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = url
    c0 = time.process_time()
    rec = _build(lambda m, u: 0.0, False, lambda s: s)
    c1 = time.process_time()
    rec.feed(SessionStarted("s", "/", "m", "p", (), "default"))
    rec.feed(TurnStarted(1))
    delta = TextDelta("tok ")
    c2 = time.process_time()
    for _ in range(20_000):
        rec.feed(delta)
    c3 = time.process_time()
    rec.feed(AssistantMessage(Message("assistant", ()), Usage(10, 20_000), "m", "end_turn"))
    rec.feed(RunFinished(RunResult("success", False, "ok", "s", 1, 1, 1, 0.0, Usage(10, 20_000))))
    t4 = time.perf_counter()
    rec.close()
    close_ms = (time.perf_counter() - t4) * 1000
    print(f"in process: SDK import + setup {(c1 - c0) * 1000:.0f} ms CPU (on a thread); 20,000 deltas "
          f"{(c3 - c2) * 1000:.1f} ms CPU; close (flush to the sink) {close_ms:.0f} ms wall")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args().runs
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    otel = {"AGENTCLI_ENABLE_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_port}"}
    in_process(otel["OTEL_EXPORTER_OTLP_ENDPOINT"])
    target = TARGETS["anthropic"]
    print(f"runs {runs}; load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        proj = tmp / "proj"
        proj.mkdir()
        for scenario in ("20k", "one-reply"):
            with fake_server(SCENARIOS[scenario], tmp, target) as url:
                env = {**clean_env(tmp / "home"), **target.env(url)}
                cmd = [PY, "-m", "agentcli", "-p", "go", *target.args, "--no-session-persistence"]
                off: list[tuple[float, float]] = []
                on: list[tuple[float, float]] = []
                for _ in range(runs):
                    off.append(timed(cmd, proj, env)[:2])
                    on.append(timed(cmd, proj, {**env, **otel})[:2])
            w_off, c_off = (statistics.median(x[i] for x in off) for i in (0, 1))
            w_on, c_on = (statistics.median(x[i] for x in on) for i in (0, 1))
            print(f"{scenario:>9}: off {w_off * 1000:.0f} ms wall / {c_off * 1000:.0f} ms CPU; on {w_on * 1000:.0f} ms "
                  f"wall / {c_on * 1000:.0f} ms CPU; CPU +{(c_on / c_off - 1) * 100:.1f} %, wall "
                  f"+{(w_on - w_off) * 1000:.0f} ms")
    sink.shutdown()


if __name__ == "__main__":
    main()
