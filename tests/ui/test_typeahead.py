"""`TurnKeys.take_pending` on a real pseudo-terminal: what was typed while nobody read the keyboard."""

from __future__ import annotations

import os
import termios

from agentcli.ui.keys import TurnKeys


def test_pending_keys_become_text_with_enter_and_no_escape_sequences() -> None:
    master, slave = os.openpty()
    try:
        mode = termios.tcgetattr(slave)
        mode[0] &= ~termios.ICRNL  # as the REPL keeps it between prompts
        termios.tcsetattr(slave, termios.TCSANOW, mode)
        keys = TurnKeys(lambda: None, lambda: None, lambda _: None, fd=slave)
        os.write(master, b"fix the\x1b[D tests\x7f\x7f\x7f\x7f\x7fbug\rnext lin")
        assert keys.take_pending() == "fix the bug\nnext lin"
        assert keys.take_pending() == ""  # read once
        assert termios.tcgetattr(slave)[3] & termios.ICANON  # the terminal is left as it was
    finally:
        os.close(master)
        os.close(slave)
