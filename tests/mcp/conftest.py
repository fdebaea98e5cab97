"""Real MCP servers for the MCP tests: `mcp-server-time` (PyPI, test extras) and
`@modelcontextprotocol/server-everything` (npm, installed by scripts/test into .cache/npm-mcp)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NPM_PREFIX = ROOT / ".cache" / "npm-mcp"
EVERYTHING = NPM_PREFIX / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
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
def time_server() -> list[str]:
    return [str(require(TIME_SERVER))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)  # polling a condition (the port), not sleeping in place of one
    raise RuntimeError(f"nothing listening on {port}")


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
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
