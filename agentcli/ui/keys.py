"""Keys while a turn runs: the terminal is in cbreak mode (no echo, no signals) and stdin is read by the
event loop, so Esc or Ctrl-C cancel the turn at once, Shift-Tab switches mode, and typing goes to a
type-ahead buffer that becomes the next prompt's text."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import Any

ESC = b"\x1b"
CTRL_C = b"\x03"
BACK_TAB = b"\x1b[Z"


class TurnKeys:
    """`start()` / `stop()` bracket a turn (and are undone around an approval prompt)."""

    def __init__(
        self,
        on_cancel: Callable[[], None],
        on_back_tab: Callable[[], None],
        on_typed: Callable[[str], None],
        fd: int | None = None,
    ) -> None:
        self.on_cancel = on_cancel
        self.on_back_tab = on_back_tab
        self.on_typed = on_typed
        self.fd = _stdin_fd() if fd is None else fd
        self.typed = ""
        self._saved: list[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        if self._loop is not None or self.fd < 0 or not os.isatty(self.fd):
            return
        import termios

        self._saved = termios.tcgetattr(self.fd)
        mode = termios.tcgetattr(self.fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self.fd, self._readable)

    def stop(self) -> None:
        if self._loop is None:
            return
        import termios

        self._loop.remove_reader(self.fd)
        self._loop = None
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            self._saved = None

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            return
        self.feed(data)

    def feed(self, data: bytes) -> None:
        """Interpret one read's bytes (a lone ESC is the Esc key; longer escape sequences are other keys)."""
        if data == ESC or CTRL_C in data:
            self.on_cancel()
            return
        if BACK_TAB in data:
            self.on_back_tab()
            data = data.replace(BACK_TAB, b"")
        if data.startswith(ESC):
            return
        text = self.typed
        for ch in data.decode("utf-8", "ignore"):
            if ch in "\x7f\x08":
                text = text[:-1]
            elif ch == "\x15":
                text = ""
            elif ch in "\r\n":
                text += "\n"
            elif ch.isprintable() or ch == "\t":
                text += ch
        if text != self.typed:
            self.typed = text
            self.on_typed(text)


def _stdin_fd() -> int:
    """stdin's descriptor, or -1 when there is none (stdin replaced by a test harness or closed)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return -1
