"""agentcli: a terminal coding agent. `agentcli.query()` is the Python API (see agentcli.api)."""

from __future__ import annotations

from agentcli.version import __version__

# Not `from typing import TYPE_CHECKING`: importing typing costs `--version` (answered from here) ~3–5 ms for
# nothing. Type checkers take any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["__version__", "query"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so `import agentcli` (and `agentcli --version`) stays instant.
    if name == "query":
        from agentcli.api import query

        return query
    raise AttributeError(f"module 'agentcli' has no attribute {name!r}")
