"""How wide a character is on the terminal, for prompt_toolkit, without importing `wcwidth` for the prompt's start.

prompt_toolkit measures each character it draws with `wcwidth.wcwidth` (its only use of the package: `from wcwidth
import wcwidth` in prompt_toolkit/utils.py). wcwidth 0.9 imports ~30 modules of tables when it is imported: ~60 M
instructions, ~11 % of the REPL's start up to its first key (bench/RESULTS.md, "Eighth landing"). A printable ASCII
character is one cell wide in every Unicode version, and the prompt's first draw is ASCII, so until another
character is measured a stand-in module answers; the first other character imports the real wcwidth, which answers
it and everything after (the stand-in forwards any other attribute to it too). tests/ui/test_cwidth.py fails
loudly if prompt_toolkit starts using wcwidth otherwise, and holds the stand-in's answers to the real ones.
"""

from __future__ import annotations

import _thread
import importlib
import sys
import types
from typing import Any

_lock = _thread.allocate_lock()
_real: types.ModuleType | None = None


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system asks for `__path__` at `from wcwidth import wcwidth`
            raise AttributeError(name)
        return getattr(real(), name)


def wcwidth(char: str, *args: Any) -> int:
    """`wcwidth.wcwidth`: printable ASCII answered here, anything else by the real module."""
    if " " <= char <= "~" and len(char) == 1:
        return 1
    width: int = real().wcwidth(char, *args)
    return width


def real() -> types.ModuleType:
    """The real wcwidth module, imported now if it is not yet (in `sys.modules` from then on)."""
    global _real
    if _real is None:
        with _lock:
            if _real is None:
                if isinstance(sys.modules.get("wcwidth"), _StandIn):
                    del sys.modules["wcwidth"]
                _real = importlib.import_module("wcwidth")
    return _real


def install() -> None:
    """Put the stand-in in place, unless wcwidth or prompt_toolkit's user of it is imported already."""
    if "wcwidth" in sys.modules or "prompt_toolkit.utils" in sys.modules:
        return
    stand_in = _StandIn("wcwidth", __doc__)
    stand_in.wcwidth = wcwidth  # type: ignore[attr-defined]
    sys.modules["wcwidth"] = stand_in
