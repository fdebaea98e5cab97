"""The host allowlist: an HTTP proxy in agentcli that lets sandboxed commands reach only the hosts in
`sandbox_allowed_hosts`.

The sandbox has no network of its own (a fresh network namespace). The proxy listens on a Unix socket in a
private directory; the socket is bound into the sandbox, where `bridge.py` (the sandbox's first process) offers it
on 127.0.0.1 and points `HTTP(S)_PROXY` at it. The proxy reads each request's target — `CONNECT host:port` for
HTTPS, an absolute URL for plain HTTP — and refuses any host not allowed (403), before connecting anywhere.
Programs that ignore the proxy variables have no network at all. Threads, not asyncio: the proxy serves commands
started from synchronous code too (`agentcli sandbox run`).
"""

from __future__ import annotations

import atexit
import contextlib
import fnmatch
import os
import shutil
import socket
import socketserver
import tempfile
import threading
from urllib.parse import urlsplit

MAX_HEAD = 65536


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """`host` is one of `allowed` (exact, case-insensitive) or matches a `*.domain` entry (subdomains only)."""
    host = host.lower().rstrip(".").strip("[]")
    for entry in allowed:
        entry = entry.lower().rstrip(".")
        if host == entry or (entry.startswith("*.") and fnmatch.fnmatchcase(host, entry) and host != entry[2:]):
            return True
    return False


def parse_target(head: bytes) -> tuple[str, str, int, bytes] | None:
    """(method, host, port, the request to forward) from a proxy request head, or None when malformed. For
    CONNECT nothing is forwarded; for plain HTTP the absolute URL becomes a path."""
    try:
        line, _, rest = head.partition(b"\r\n")
        method, target, version = line.decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        return None
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        if not host or not port.isdigit():
            return None
        return method, host, int(port), b""
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        return None
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    forward = f"{method} {path} {version}\r\n".encode("ascii") + rest
    return method, url.hostname, url.port or 80, forward


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        client: socket.socket = self.request
        head = b""
        while b"\r\n\r\n" not in head and len(head) < MAX_HEAD:
            chunk = client.recv(4096)
            if not chunk:
                return
            head += chunk
        target = parse_target(head)
        if target is None:
            client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        method, host, port, forward = target
        if not host_allowed(host, self.server.allowed):
            body = f"agentcli sandbox: {host} is not in sandbox_allowed_hosts\n".encode()
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                           b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            return
        try:
            upstream = socket.create_connection((host, port), timeout=30)
        except OSError as err:
            client.sendall(f"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n"
                           f"X-Agentcli-Error: {err.strerror or err}\r\n\r\n".encode())
            return
        upstream.settimeout(None)
        with upstream:
            if method == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.sendall(forward)
            back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
            back.start()
            _pipe(client, upstream)
            back.join()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allowed: tuple[str, ...] = ()


class HostProxy:
    """A running allowlist proxy; `socket_path` is what the sandbox binds in. `close()` stops it."""

    def __init__(self, allowed: tuple[str, ...]) -> None:
        _remove_stale()
        self.dir = tempfile.mkdtemp(prefix=f"agentcli-proxy-{os.getpid()}-")
        self.socket_path = os.path.join(self.dir, "proxy.sock")
        self.server = _Server(self.socket_path, _Handler)
        self.server.allowed = allowed
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

        atexit.register(self.close)

    def close(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
            self.server.server_close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _remove_stale() -> None:
    """Directories of proxies whose agentcli ended without cleaning up (`os._exit`, SIGKILL)."""
    base = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            parts = name.split("-")
            stale = len(parts) >= 4 and parts[2].isdigit() and not os.path.exists(f"/proc/{parts[2]}")
            if name.startswith("agentcli-proxy-") and stale:
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
