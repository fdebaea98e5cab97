"""Keys while a turn runs: the terminal is in cbreak mode (no echo, no signals) and stdin is read by the
event loop, so Esc or Ctrl-C cancel the turn at once, Shift-Tab switches mode, and typing goes to a
type-ahead buffer that becomes the next prompt's text.

The saved terminal settings are put back however the process ends: `stop()` on a normal end or an
exception, an atexit hook for an exit that skips it, and a SIGTERM / SIGHUP handler that restores the terminal
before the signal takes its usual course.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

ESC = b"\x1b"
CTRL_C = b"\x03"
BACK_TAB = b"\x1b[Z"
RESTORE_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
SHOW_CURSOR = b"\x1b[?25h\x1b[?2004l"


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
        self._guarded = False
        self._sane: list[Any] | None = None

    def start(self) -> None:
        if self._loop is not None or self.fd < 0 or not os.isatty(self.fd):
            return
        import termios

        self._guard()
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
        self._loop.remove_reader(self.fd)
        self._loop = None
        self.restore()

    def restore(self) -> None:
        """Put the terminal back as `start()` found it (safe to call at any time, more than once)."""
        saved, self._saved = self._saved, None
        if saved is not None:
            _set_attrs(self.fd, saved)

    def guard_terminal(self) -> None:
        """For the REPL's lifetime: remember the terminal's settings (restored by `release_terminal`, at exit,
        and on SIGTERM / SIGHUP, cursor shown), and stop the tty driver turning Ctrl-C into SIGINT — between two
        prompts a Ctrl-C then waits as a key for the next prompt instead of killing the session, and an Enter
        stays an Enter (no CR → LF translation)."""
        if self.fd < 0 or not os.isatty(self.fd):
            return
        import termios

        if self._sane is None:
            self._sane = termios.tcgetattr(self.fd)
        mode = termios.tcgetattr(self.fd)
        mode[3] &= ~termios.ISIG
        # Enter stays "\r" while no prompt is up, so a key typed ahead is still an Enter, not a Ctrl-J (new line)
        mode[0] &= ~termios.ICRNL
        _set_attrs(self.fd, mode)
        self._guard()

    def release_terminal(self) -> None:
        """Put the terminal back as it was before `guard_terminal` (and `start`)."""
        self.restore()
        if self._sane is not None:
            _set_attrs(self.fd, self._sane)

    def _guard(self) -> None:
        if self._guarded:
            return
        self._guarded = True
        atexit.register(self.release_terminal)
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set from the main thread
        for signum in RESTORE_SIGNALS:
            signal.signal(signum, self._on_signal(signal.getsignal(signum)))

    def _on_signal(self, previous: Any) -> Callable[[int, FrameType | None], None]:
        def handler(signum: int, frame: FrameType | None) -> None:
            self.release_terminal()
            if self._sane is not None:
                # rich's live region hides the cursor; prompt_toolkit turns on bracketed paste
                _write_tty(SHOW_CURSOR)
            if callable(previous):
                previous(signum, frame)
            elif previous != signal.SIG_IGN:
                # the default action (terminate), now that the terminal is sane again
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        return handler

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
        text = edit_typed(self.typed, data)
        if text != self.typed:
            self.typed = text
            self.on_typed(text)

    def take_pending(self) -> str:
        """Keys typed while nobody read the keyboard (start-up, between a turn and the next prompt), as text:
        Enter is "\n". The tty driver has already turned those Enters into line feeds, which the prompt would
        take for Ctrl-J (a new line); read here, they can be submitted as the Enter they were."""
        if self.fd < 0 or self._loop is not None or not os.isatty(self.fd):
            return ""
        import termios

        try:
            saved = termios.tcgetattr(self.fd)
        except termios.error:
            return ""
        mode = termios.tcgetattr(self.fd)
        mode[3] &= ~termios.ICANON  # an unfinished line is readable too
        mode[6][termios.VMIN] = 0
        mode[6][termios.VTIME] = 0
        data = b""
        try:
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
            while chunk := _read_nowait(self.fd):
                data += chunk
        finally:
            _set_attrs(self.fd, saved)
        import re

        # arrow keys and other escape sequences typed ahead are dropped, not turned into stray text
        return edit_typed("", re.sub(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?", b"", data, flags=re.S))


def edit_typed(text: str, data: bytes) -> str:
    """`text` after the keys in `data`: printable characters, Backspace, Ctrl-U; Enter adds a line break."""
    for ch in data.decode("utf-8", "ignore"):
        if ch in "\x7f\x08":
            text = text[:-1]
        elif ch == "\x15":
            text = ""
        elif ch in "\r\n":
            text += "\n"
        elif ch.isprintable() or ch == "\t":
            text += ch
    return text


def _read_nowait(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except (BlockingIOError, InterruptedError, OSError):
        return b""


def _stdin_fd() -> int:
    """stdin's descriptor, or -1 when there is none (stdin replaced by a test harness or closed)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return -1


def _set_attrs(fd: int, attrs: list[Any]) -> None:
    import termios

    with contextlib.suppress(OSError, termios.error):  # the terminal is gone (hang-up): nothing to restore
        termios.tcsetattr(fd, termios.TCSANOW, attrs)


def _write_tty(data: bytes) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = sys.stdout.fileno()
        if os.isatty(fd):
            os.write(fd, data)
