"""Starting a test's local HTTP server in a thread, safely under load.

`serve_forever` calls `accept()` after `select` reports a pending connection; if the client gave up in between
(a reset under a loaded machine), a blocking `accept()` waits for the next connection that never comes, and the
fixture's `shutdown()` then waits forever. With a non-blocking listening socket `accept()` raises instead, which
socketserver ignores; accepted connections are blocking as usual.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from socketserver import BaseServer
from typing import Any


def serve_in_thread(server: BaseServer, poll_interval: float = 0.05) -> threading.Thread:
    """`server` serving in a daemon thread; `poll_interval` bounds how long its `shutdown()` waits (socketserver's
    0.5 s default cost every fixture's teardown up to half a second)."""
    server.socket.setblocking(False)  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True)
    thread.start()
    return thread


class PageHandler(BaseHTTPRequestHandler):
    """A local web site's handler: `send_page` and `redirect`, and no request log on stderr."""

    def send_page(self, ctype: str, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, where: str) -> None:
        self.send_response(302)
        self.send_header("location", where)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass
