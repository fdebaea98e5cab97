"""REPL performance (issue 5).

    .venv/bin/python bench/bench_repl.py [render] [startup] [echo] [--runs 5]

- render: a 20,000-token markdown reply fed to the Renderer at 1,000 tokens/s on a 100x40 terminal (live
  region on, output to /dev/null). Reports wall time against the stream's own duration, CPU per 1,000 tokens
  for the first and the last 1,000, and unpaced throughput.
- startup: `agentcli` in a pseudo-terminal until the prompt is drawn and until a typed key is echoed (median).
- echo: while a reply streams at 1,000 tok/s, type keys and time each one's echo (median, max); then Esc
  and time until the turn has stopped.
- e2e: the whole REPL on a 20,000-token reply streamed at 1,000 tok/s: first token to the prompt's return.
"""

from __future__ import annotations

import argparse
import itertools
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
sys.path.insert(0, str(ROOT))


# ---- render ---------------------------------------------------------------------------------------------


def markdown_tokens(n: int) -> list[str]:
    """~n tokens (≈4 characters each) of varied markdown: headings, prose, lists, code blocks."""
    section = (
        "## Section {i}\n\nThe parser reads the **configuration** once and keeps a `cache` of the results, "
        "so later lookups are cheap; see the notes below for the edge cases we handle.\n\n"
        "- first point about the design\n- second point, with `inline code`\n- third point\n\n"
        "```python\ndef handler_{i}(event: dict) -> int:\n    total = 0\n    for key, value in event.items():\n"
        "        if key.startswith('x'):\n            total += len(value)\n    return total\n```\n\n"
    )
    text = ""
    i = 0
    while len(text) < n * 4:
        text += section.format(i=i)
        i += 1
    return [text[j : j + 4] for j in range(0, n * 4, 4)]


def bench_render(tokens: int = 20_000, rate: float = 1000.0) -> dict[str, float]:
    from rich.console import Console

    from agentcli.core.events import MessageStop, TextDelta, TurnStarted
    from agentcli.ui.render import Renderer

    pieces = markdown_tokens(tokens)
    with open(os.devnull, "w") as sink:
        console = Console(file=sink, force_terminal=True, width=100, height=40, color_system="truecolor")
        r = Renderer(console)
        r.begin_turn()
        r.feed(TurnStarted(1))
        cpu_marks = [time.process_time()]
        t0 = time.perf_counter()
        for i, piece in enumerate(pieces):
            due = t0 + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            r.feed(TextDelta(piece))
            if (i + 1) % 1000 == 0:
                cpu_marks.append(time.process_time())
        r.feed(MessageStop("end_turn"))
        r.flush()
        wall = time.perf_counter() - t0
    per_k = [b - a for a, b in itertools.pairwise(cpu_marks)]
    stream = tokens / rate
    return {
        "stream_s": stream,
        "wall_s": wall,
        "over_pct": 100 * (wall - stream) / stream,
        "cpu_first_1k_ms": per_k[0] * 1000,
        "cpu_last_1k_ms": per_k[-1] * 1000,
        "ratio": per_k[-1] / per_k[0] if per_k[0] else float("nan"),
        "unpaced_tok_s": unpaced(pieces),
    }


def unpaced(pieces: list[str]) -> float:
    from rich.console import Console

    from agentcli.core.events import MessageStop, TextDelta
    from agentcli.ui.render import Renderer

    with open(os.devnull, "w") as sink:
        console = Console(file=sink, force_terminal=True, width=100, height=40, color_system="truecolor")
        r = Renderer(console)
        r.begin_turn()
        t0 = time.perf_counter()
        for piece in pieces:
            r.feed(TextDelta(piece))
        r.feed(MessageStop("end_turn"))
        r.flush()
        return len(pieces) / (time.perf_counter() - t0)


# ---- pseudo-terminal runs -------------------------------------------------------------------------------


@contextmanager
def fake_server(script: list[dict[str, Any]]) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.json"
        path.write_text(json.dumps(script))
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.server", "--script", str(path), "--loop"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            yield proc.stdout.readline().strip()
        finally:
            proc.terminate()
            proc.wait()


def spawn(url: str, home: str, cwd: str, tree: Path | None = None) -> Any:
    """agentcli's REPL in a pseudo-terminal; `tree`: run the package found there (an earlier version) instead."""
    import pexpect

    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        **({"PYTHONPATH": str(tree)} if tree else {}),
        "AGENTCLI_HOME": home,
        "TERM": "xterm-256color",
        "OPENAI_BASE_URL": url + "/v1",
        "OPENAI_API_KEY": "sk-fake-bench",
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }
    child = pexpect.spawn(
        sys.executable, ["-m", "agentcli", "--model", "openai/fake-model"], cwd=cwd, env=env, dimensions=(40, 100),
        encoding="utf-8", timeout=30
    )
    child.delaybeforesend = None  # pexpect sleeps 50 ms before every send by default
    return child


def bench_startup(runs: int, tree: Path | None = None) -> dict[str, float]:
    drawn: list[float] = []
    echoed: list[float] = []
    with fake_server([{"text": "hi"}]) as url, tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            t0 = time.perf_counter()
            child = spawn(url, tmp, tmp, tree)
            child.expect("›")
            drawn.append(time.perf_counter() - t0)
            child.send("z")
            child.expect("z")
            echoed.append(time.perf_counter() - t0)
            child.sendcontrol("c")
            child.sendcontrol("d")
            child.expect(__import__("pexpect").EOF)
    return {
        "prompt_ms": 1000 * statistics.median(drawn),
        "prompt_min_ms": 1000 * min(drawn),
        "first_key_ms": 1000 * statistics.median(echoed),
        "first_key_min_ms": 1000 * min(echoed),
    }


@contextmanager
def paced_server(tokens: list[str], rate: float) -> Iterator[str]:
    """A minimal OpenAI-compatible chat server streaming `tokens` at `rate` per second (the fake LLM server
    streams as fast as it can; typing while a reply streams needs a reply that takes a while)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            t0 = time.perf_counter()
            try:
                for i, tok in enumerate(tokens):
                    delay = t0 + i / rate - time.perf_counter()
                    if delay > 0:
                        time.sleep(delay)
                    self._event({"choices": [{"index": 0, "delta": {"content": tok}, "finish_reason": None}]})
                self._event(
                    {
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": len(tokens)},
                    }
                )
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _event(self, chunk: dict[str, Any]) -> None:
            body = {"id": "c1", "object": "chat.completion.chunk", "model": "fake-model", **chunk}
            self.wfile.write(b"data: " + json.dumps(body).encode() + b"\n\n")
            self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def bench_echo(keys: int = 20) -> dict[str, float]:
    """Type keys while a 1,000 tok/s reply streams; then Esc, and time until the turn has stopped."""
    import pexpect

    lat: list[float] = []
    with paced_server(markdown_tokens(60_000), 1000.0) as url, tempfile.TemporaryDirectory() as tmp:
        child = spawn(url, tmp, tmp)
        child.expect("›")
        child.send("write a long answer\r")
        child.expect("Section 1")
        typed = ""
        for i in range(keys):
            ch = "abcdefghijklmnopqrstuvwxyz"[i % 26]
            typed += ch
            t0 = time.perf_counter()
            child.send(ch)
            child.expect_exact("› " + typed, timeout=5)
            lat.append(time.perf_counter() - t0)
            time.sleep(0.1)
        t0 = time.perf_counter()
        child.send("\x1b")
        child.expect("Interrupted")
        esc = time.perf_counter() - t0
        child.expect_exact(typed)  # the typed-ahead text is waiting in the next prompt
        child.sendcontrol("c")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    return {"echo_median_ms": 1000 * statistics.median(lat), "echo_max_ms": 1000 * max(lat), "esc_stop_ms": 1000 * esc}


def bench_e2e(tokens: int = 20_000, rate: float = 1000.0) -> dict[str, float]:
    """The whole REPL (provider adapter, loop, renderer, terminal) on a reply streamed at `rate` tok/s."""
    import pexpect

    pieces = [*markdown_tokens(tokens - 1), "\n\nEND-OF-REPLY\n"]
    with paced_server(pieces, rate) as url, tempfile.TemporaryDirectory() as tmp:
        child = spawn(url, tmp, tmp)
        child.expect("›")
        child.send("go\r")
        child.expect("Section 0")
        t0 = time.perf_counter()
        child.expect("END-OF-REPLY", timeout=tokens / rate * 3)
        child.expect("›")
        wall = time.perf_counter() - t0
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    stream = tokens / rate
    return {"stream_s": stream, "wall_s": wall, "over_pct": 100 * (wall - stream) / stream}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("which", nargs="*", default=["render", "startup", "echo", "e2e"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tokens", type=int, default=20_000)
    args = ap.parse_args()
    results: dict[str, dict[str, float]] = {}
    if "startup" in args.which:
        results["startup"] = bench_startup(args.runs)
    if "echo" in args.which:
        results["echo"] = bench_echo()
    if "render" in args.which:
        results["render"] = bench_render(args.tokens)
    if "e2e" in args.which:
        results["e2e"] = bench_e2e(args.tokens)
    for name, figures in results.items():
        print(f"{name}: " + ", ".join(f"{k}={v:.1f}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
