"""What one Grep search asks for, shared by the two engines that run it: ripgrep (agentcli.tools.grep) and the
pure-Python fallback (agentcli.tools.grep_fallback)."""

from __future__ import annotations

from typing import NamedTuple


class GrepOptions(NamedTuple):
    """The search, independent of the engine that runs it."""

    pattern: str
    mode: str = "files_with_matches"
    ignore_case: bool = False
    line_numbers: bool = True
    after: int = 0
    before: int = 0
    globs: tuple[str, ...] = ()
    file_type: str | None = None
    multiline: bool = False
