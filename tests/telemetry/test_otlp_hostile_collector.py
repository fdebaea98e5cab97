"""A collector that answers hugely or a byte at a time: the exporter reads its status and little else, within the
export's time, so it can neither balloon agentcli's memory nor hold a flush (or the exit) for ever. A real
loopback server speaking raw HTTP/1.1 to the real `otlp.Sender`."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from agentcli.telemetry.otlp import Sender, Target

CAP = 200 << 20  # what the hostile collector sends at most (so a failing exporter still ends)


class Hostile:
    """Answers every request with 200 and a body of `CAP` bytes: as fast as it can, or one byte per 50 ms."""

    def __init__(self, trickle: bool) -> None:
        self.trickle = trickle
        self.sent = 0
        self.done = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1/traces"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        with self.listener.accept()[0] as sock:
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(65536)
            try:
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
                             b"Content-Length: %d\r\n\r\n" % CAP)
                chunk = b"\0" * (1 if self.trickle else 1 << 20)
                deadline = time.monotonic() + 10
                while self.sent < CAP and time.monotonic() < deadline:
                    sock.sendall(chunk)
                    self.sent += len(chunk)
                    if self.trickle:
                        time.sleep(0.05)  # the attack itself: a byte well within any per-read timeout
            except OSError:
                pass  # the exporter hung up: what this test wants
            finally:
                self.done.set()


@pytest.fixture(params=[False, True], ids=["huge", "trickle"])
def hostile(request: pytest.FixtureRequest) -> Iterator[Hostile]:
    h = Hostile(request.param)
    yield h
    h.listener.close()


def test_a_hostile_answer_is_not_read_past_its_status(hostile: Hostile) -> None:
    target = Target(hostile.url, {"content-type": "application/x-protobuf"}, 1.0, False, "http/protobuf")
    sender = Sender("traces", target, {})
    sender.open()
    started = time.monotonic()
    try:
        sender.post(b"\x0a\x00")
    finally:
        sender.close()
    assert time.monotonic() - started < 3  # the export's timeout (1 s), not the collector's pace
    assert hostile.done.wait(15)
    assert hostile.sent < 32 << 20  # it was hung up on, not read: 200 MiB would have been held in memory
