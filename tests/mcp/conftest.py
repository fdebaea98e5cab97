"""Real MCP servers for the MCP tests: `mcp-server-time` (PyPI, test extras),
`@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-memory` (npm, installed by scripts/test
into .cache/npm-mcp)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NPM_PREFIX = ROOT / ".cache" / "npm-mcp"
EVERYTHING = NPM_PREFIX / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
MEMORY = NPM_PREFIX / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
TIME_SERVER = Path(sys.executable).with_name("mcp-server-time")


def require(path: Path) -> Path:
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `bash scripts/test` (it installs the MCP test servers)")
    return path


@pytest.fixture(scope="session")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("node is missing: the MCP tests need Node.js (scripts/test installs it)")
    return found


@pytest.fixture(scope="session")
def everything(node: str) -> list[str]:
    """The command line of server-everything over stdio."""
    return [node, str(require(EVERYTHING)), "stdio"]


@pytest.fixture(scope="session")
def memory_server(node: str) -> list[str]:
    """The command line of server-memory over stdio (its knowledge graph file: MEMORY_FILE_PATH)."""
    return [node, str(require(MEMORY))]


@pytest.fixture(scope="session")
def time_server() -> list[str]:
    return [str(require(TIME_SERVER))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_announced(proc: subprocess.Popen[bytes], port: int) -> threading.Thread:
    """Read the server's stderr until it says it listens on `port` (server-everything prints "… on port N" once
    its socket is bound); then keep draining it on a thread so the pipe never fills."""
    assert proc.stderr is not None
    for raw in proc.stderr:
        if f"port {port}".encode() in raw:
            drain = threading.Thread(target=proc.stderr.read, daemon=True)
            drain.start()
            return drain
    raise RuntimeError(f"the server exited ({proc.wait()}) without listening on {port}")


@pytest.fixture
def everything_http(node: str) -> Iterator[str]:
    """server-everything over streamable HTTP (and legacy SSE on /sse? no: one transport per process)."""
    yield from _serve(node, "streamableHttp", "/mcp")


@pytest.fixture
def everything_sse(node: str) -> Iterator[str]:
    yield from _serve(node, "sse", "/sse")


def _serve(node: str, transport: str, path: str) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([node, str(require(EVERYTHING)), transport], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    drain: threading.Thread | None = None
    try:
        drain = wait_announced(proc, port)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if drain is not None:
            drain.join(10)  # ends at EOF, now that the server is gone
        assert proc.stderr is not None
        proc.stderr.close()


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """The machine under load: two busy loops for the test's length (each also ends by itself after 5 minutes)."""
    code = "import time\nend = time.monotonic() + 300\nwhile time.monotonic() < end:\n    pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(timeout=10)
