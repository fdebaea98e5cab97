

import sys as _sys
import types as _types

# httpx imports its command-line client (click, rich, pygments: ~70 ms here) whenever click is installed, and
# click comes with the MCP SDK's dependencies. agentcli never runs that client: a placeholder keeps it unloaded.
if "httpx._main" not in _sys.modules:
    _cli = _types.ModuleType("httpx._main")

    def _no_cli() -> None:
        raise SystemExit("the httpx command-line client is not loaded inside agentcli")

    _cli.main = _no_cli  # type: ignore[attr-defined]
    _sys.modules["httpx._main"] = _cli
