"""The fake LLM server: real HTTP on 127.0.0.1, scripted replies, every request recorded.

    with FakeLLM([Reply(text="hi")]) as fake:
        fake.url            # http://127.0.0.1:PORT — Anthropic base URL
        fake.openai_url     # http://127.0.0.1:PORT/v1 — OpenAI-compatible base URL
        fake.requests[0].body["messages"]

Each request takes the next scripted reply (`loop=True` repeats the script). Requests are checked against the
wire rules of the endpoint hit; with `strict=True` (default) a violation is answered with HTTP 400 and kept
in `fake.violations`. As a process (benchmarks): `python -m tests.fakes.server --script s.json [--loop]`
prints the base URL on stdout and serves until killed. The pytest fixture is `fake_llm` (tests/fakes/fixtures.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.render import Ids, Renderer, dumps, load_builtin, renderer_for
from tests.fakes.script import Fault, Reply
from tests.fakes.serving import serve_in_thread


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: Any
    violations: list[str] = field(default_factory=list)
    received_at: float = 0.0  # time.time() when the request line had arrived (benchmarks: start to first byte)


class FakeLLM:
    """A scripted model server in a daemon thread. Thread-safe script and request log."""

    def __init__(self, replies: Iterable[Reply] = (), *, loop: bool = False, strict: bool = True,
                 responder: Responder | None = None, max_input_tokens: int | None = None) -> None:
        load_builtin()
        self.responder = responder  # consulted first: a Reply answers this request instead of the script
        self.max_input_tokens = max_input_tokens  # a model window: bigger requests get the "too long" error
        self.too_long: list[int] = []  # sizes of the requests refused for that
        self.n_ctx: int | None = None  # set: answer llama.cpp's GET /props with this runtime context
        self._lock = threading.Lock()
        self._script: list[Reply] = list(replies)
        self._next = 0
        self._taken: set[int] = set()
        self.loop = loop
        self.strict = strict
        self.requests: list[RecordedRequest] = []
        self._arrived = threading.Condition()
        self.get_routes: dict[str, Any] = {}  # GET path → JSON body (e.g. "/v1/models", llama.cpp's "/props")
        self.arrivals: list[dict[str, Any]] = []  # every request, model endpoints included: method, path, received_at
        self.ids = Ids()
        self.stopping = threading.Event()
        # A `slow_first_byte` fault waits its delay or until this is set (by the test once it has seen what it
        # waited for, or by stop()): a test need not sit out the whole delay.
        self.first_byte_released = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._cache: dict[tuple[int, str], list[bytes]] = {}

    # ---- script ------------------------------------------------------------------------------------------

    def push(self, *replies: Reply) -> FakeLLM:
        with self._lock:
            self._script.extend(replies)
        return self

    def take(self, body_text: str = "") -> tuple[int, Reply] | None:
        """The next reply in order; one with `when` only for a request whose body contains that text (the
        first such reply not yet taken)."""
        with self._lock:
            if self._next >= len(self._script):
                if not (self.loop and self._script):
                    return None
                self._next, self._taken = 0, set()
            for i in range(self._next, len(self._script)):
                reply = self._script[i]
                if i in self._taken or (reply.when is not None and reply.when not in body_text):
                    continue
                self._taken.add(i)
                while self._next in self._taken:
                    self._next += 1
                return i, reply
            return None

    def wait_for_requests(self, n: int, timeout: float) -> bool:
        """Block until `n` model requests have arrived (each arrival wakes the waiter); False at the timeout."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= n, timeout)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script) - len(self._taken) if not self.loop else len(self._script) - self._next

    @property
    def violations(self) -> list[str]:
        return [v for r in self.requests for v in r.violations]

    def prerender(self, request_path: str, model: str = "fake-model") -> None:
        """Render every scripted stream for `request_path` now, so serving costs only the writes."""
        renderer = renderer_for(request_path)
        assert renderer is not None, request_path
        for i, reply in enumerate(self._script):
            key = (i, request_path)
            self._cache[key] = renderer.stream(reply, {"model": model, "stream": True,
                                                       "stream_options": {"include_usage": True}}, self.ids)

    def rendered(self, i: int, path: str, renderer: Renderer, reply: Reply, body: Any) -> list[bytes]:
        cached = self._cache.get((i, path))
        return cached if cached is not None else renderer.stream(reply, body, self.ids)

    # ---- lifecycle ---------------------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeLLM:
        server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = serve_in_thread(server, 0.05)
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.first_byte_released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "FakeLLM not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-llm/1"
    # Real API servers stream with TCP_NODELAY; without it each small event write waits for the client's
    # delayed ACK (~40 ms per response on Linux), which would dominate every timing taken against the fake.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def parse_request(self) -> bool:
        # Called as soon as the request line is read: the closest we get to the request's first byte.
        self.received_at = time.time()
        ok = super().parse_request()
        if ok:
            self.fake.arrivals.append({"method": self.command, "path": _path_only(self.path),
                                       "received_at": self.received_at})
        return ok

    @property
    def fake(self) -> FakeLLM:
        return self.server.fake  # type: ignore[attr-defined, no-any-return]

    def do_GET(self) -> None:
        if _path_only(self.path) == "/_fake/arrivals":  # for benchmarks running the fake as a process
            self._json(200, self.fake.arrivals)
            return
        if _path_only(self.path) == "/props" and self.fake.n_ctx is not None:
            self._json(200, {"default_generation_settings": {"n_ctx": self.fake.n_ctx}, "total_slots": 1})
            return
        if _path_only(self.path) in self.fake.get_routes:
            self._json(200, self.fake.get_routes[_path_only(self.path)])
            return
        self._json(404, {"error": {"message": f"no such endpoint {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = _path_only(self.path)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        rec = RecordedRequest("POST", path, {k.lower(): v for k, v in self.headers.items()}, body,
                              received_at=self.received_at)
        with self.fake._arrived:
            self.fake.requests.append(rec)
            self.fake._arrived.notify_all()
        renderer = renderer_for(path)
        if renderer is None:
            self._json(404, {"error": {"message": f"fake LLM has no renderer for {path}"}})
            return
        if not isinstance(body, dict):
            self._json(400, renderer.error_body(400, "request body is not a JSON object", None))
            return
        rec.violations = renderer.validate(body)
        if rec.violations and self.fake.strict:
            self._json(400, renderer.error_body(400, "; ".join(rec.violations), None))
            return
        if self._too_long(path, body, renderer):
            return
        answer = self.fake.responder(path, body) if self.fake.responder is not None else None
        taken = (-1, answer) if answer is not None else self.fake.take(raw.decode("utf-8", "replace"))
        if taken is None:
            self._json(400, renderer.error_body(400, "fake LLM: the script has no reply left", None))
            return
        i, reply = taken
        if reply.fault is not None and self._fault_before_stream(reply.fault, renderer):
            return
        if not renderer.is_stream(body, path):
            self._json(200, renderer.complete(reply, body, self.fake.ids))
            return
        self._stream(self.fake.rendered(i, path, renderer, reply, body), reply, renderer)

    def _too_long(self, path: str, body: dict[str, Any], renderer: Renderer) -> bool:
        """Like a real server with a window: a request over `max_input_tokens` gets the provider's error."""
        limit = self.fake.max_input_tokens
        if limit is None:
            return False
        size = request_tokens(body)
        if size <= limit:
            return False
        self.fake.too_long.append(size)
        wire = _wire(path)
        fault = Fault.too_long(wire, size, limit)
        self._json(400, renderer.error_body(400, fault.message, fault.error_type))
        return True

    def _fault_before_stream(self, fault: Fault, renderer: Renderer) -> bool:
        """Apply a fault that happens before the body; True when the request is fully handled."""
        if fault.kind == "http":
            headers = {}
            if fault.retry_after is not None:
                headers["retry-after"] = f"{fault.retry_after:g}"
            if fault.retry_after_ms is not None:
                headers["retry-after-ms"] = str(fault.retry_after_ms)
            self._json(fault.status, renderer.error_body(fault.status, fault.message, fault.error_type), headers)
            return True
        if fault.kind == "drop_before":
            self._drop()
            return True
        if fault.kind == "slow_first_byte":
            self.fake.first_byte_released.wait(fault.delay_s)
        return False

    def _stream(self, frames: list[bytes], reply: Reply, renderer: Renderer) -> None:
        fault = reply.fault
        cut = fault.after_events if fault and fault.kind in ("drop_mid", "malformed", "stream_error") else None
        self.send_response(200)
        self.send_header("content-type", renderer.content_type)
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            if cut is None:
                if reply.burst:
                    self._chunk(b"".join(frames))
                else:
                    for frame in frames:
                        self._chunk(frame)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return
            for frame in frames[:cut]:
                self._chunk(frame)
            assert fault is not None
            if fault.kind == "drop_mid":
                self._drop()
                return
            if fault.kind == "malformed":
                self._chunk(b'data: {"type": "content_block_delta", \n\n')
            else:
                self._chunk(renderer.stream_error(fault))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


Responder = Callable[[str, dict[str, Any]], "Reply | None"]


def request_tokens(body: dict[str, Any]) -> int:
    """A request's size as a server counts it: tiktoken over the text it renders into its prompt (every
    string in the body: system, messages, tool calls and results, tool names, descriptions and schemas), not
    over the wire format's JSON punctuation, which differs between providers for the same conversation."""
    from agentcli.core.tokens import count_tokens

    parts: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                parts.append(str(k))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk({k: v for k, v in body.items() if k not in ("stream", "stream_options", "model")})
    return count_tokens(" ".join(parts))


def _wire(path: str) -> str:
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/responses"):
        return "responses"
    if ":streamGenerateContent" in path or ":generateContent" in path:
        return "gemini"
    return "openai"


def _path_only(path: str) -> str:
    """The path of a request target, also when a proxy-style absolute URL was sent."""
    if "://" in path:
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fakes.server", description=__doc__)
    ap.add_argument("--script", required=True, help="JSON file: a list of Reply objects (as dicts)")
    ap.add_argument("--loop", action="store_true", help="repeat the script forever")
    ap.add_argument("--prerender", action="append", default=[], metavar="PATH",
                    help="pre-render the script for this endpoint path (e.g. /v1/messages)")
    ap.add_argument("--ollama", action="store_true", help="also answer Ollama's /api/show and /api/tags")
    args = ap.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        replies = [Reply.from_dict(d) for d in json.load(f)]
    if args.ollama:
        from tests.fakes.ollama import FakeOllama

        fake: FakeLLM = FakeOllama(replies, loop=args.loop)
    else:
        fake = FakeLLM(replies, loop=args.loop)
    for path in args.prerender:
        fake.prerender(path)
    fake.start()
    print(fake.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
