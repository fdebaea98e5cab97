"""Starting a test's local HTTP server in a thread, safely under load.

`serve_forever` calls `accept()` after `select` reports a pending connection; if the client gave up in between
(a reset under a loaded machine), a blocking `accept()` waits for the next connection that never comes, and the
fixture's `shutdown()` then waits forever. With a non-blocking listening socket `accept()` raises instead, which
socketserver ignores; accepted connections are blocking as usual.
"""

from __future__ import annotations

import threading
from socketserver import BaseServer


def serve_in_thread(server: BaseServer, poll_interval: float = 0.5) -> threading.Thread:
    server.socket.setblocking(False)  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True)
    thread.start()
    return thread
