"""Drive the real `agentcli` REPL in a pseudo-terminal (pexpect), answering the cursor-position requests a
real terminal would answer, and keeping everything it printed."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]

AGENTCLI = str(Path(sys.executable).parent / "agentcli")
CPR_REQUEST = "\x1b[6n"


MODE_FLAGS = ("--permission-mode", "--dangerously-skip-permissions", "--preset")


class Term:
    """`agentcli` in a pty. The REPL's own default mode is `auto` (commands the sandbox confines and edits in the
    project run unasked); these tests drive questions, so they start in `default` unless they name a mode (or
    pass `repl_default=True` to test the REPL's own default)."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], rows: int = 30, cols: int = 100, *,
                 repl_default: bool = False) -> None:
        if not repl_default and "-p" not in args and not any(a.split("=")[0] in MODE_FLAGS for a in args):
            args = ["--permission-mode", "default", *args]
        self.child: Any = pexpect.spawn(
            AGENTCLI, args, cwd=str(cwd), env=env, dimensions=(rows, cols), encoding="utf-8", timeout=20
        )
        self.child.delaybeforesend = None
        self.out = ""

    def expect(self, text: str, timeout: float = 20.0, regex: bool = False) -> str:
        """Wait until `text` (literal, or a regex) appears; returns everything read up to and including it."""
        pattern = text if regex else re.escape(text)
        deadline = time.monotonic() + timeout
        start = len(self.out)
        while True:
            left = max(0.01, deadline - time.monotonic())
            i = self.child.expect([pattern, re.escape(CPR_REQUEST)], timeout=left)
            self.out += self.child.before + self.child.after
            if i == 0:
                return self.out[start:]
            self.child.send("\x1b[1;1R")

    def send(self, text: str) -> None:
        self.child.send(text)

    def line(self, text: str) -> None:
        """Type `text` and press Enter."""
        self.child.send(text)
        self.child.send("\r")

    def prompt(self) -> None:
        """Wait for the input prompt to be drawn."""
        self.expect("›")

    def wait_exit(self, timeout: float = 20.0) -> int:
        deadline = time.monotonic() + timeout
        while True:
            i = self.child.expect([pexpect.EOF, re.escape(CPR_REQUEST)], timeout=max(0.01, deadline - time.monotonic()))
            self.out += self.child.before if isinstance(self.child.before, str) else ""
            if i == 0:
                break
            self.child.send("\x1b[1;1R")
        self.child.close()
        return int(self.child.exitstatus or 0)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def child_env(base_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(
        TERM="xterm-256color",
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="sk-fake-key-for-tests",
        PYTHONWARNINGS="ignore",
    )
    env.update(extra)
    return env
