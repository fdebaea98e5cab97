"""Claude Code's MCP environment variables, read as Claude Code reads them (milliseconds and tokens):

    MCP_TIMEOUT            how long a server may take to connect (default 30000); a headless run waits this long
                           for its servers before its first request
    MCP_TOOL_TIMEOUT       how long one tool call may take (default: agentcli's `mcp_tool_timeout_s`)
    MAX_MCP_OUTPUT_TOKENS  how much of a tool's result the model reads (default 25000)

The environment sits above the config files (agentcli.settings: config < environment < flags), so a variable that is
set wins over `mcp_connect_timeout_s` / `mcp_tool_timeout_s`. A value that is not a positive number is not guessed
at: the default stays and the run says so (one notice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

CONNECT_VAR = "MCP_TIMEOUT"
TOOL_VAR = "MCP_TOOL_TIMEOUT"
OUTPUT_VAR = "MAX_MCP_OUTPUT_TOKENS"
DEFAULT_OUTPUT_TOKENS = 25_000
CHARS_PER_TOKEN = 4  # the estimate agentcli.mcp.search uses for schemas too


@dataclass(frozen=True, slots=True)
class McpLimits:
    connect_timeout_s: float
    tool_timeout_s: float
    max_output_tokens: int = DEFAULT_OUTPUT_TOKENS
    connect_from_env: bool = False  # MCP_TIMEOUT was set: notices name it
    problems: tuple[str, ...] = ()

    @property
    def max_output_chars(self) -> int:
        return self.max_output_tokens * CHARS_PER_TOKEN

    def connect_source(self) -> str:
        return f" ({CONNECT_VAR})" if self.connect_from_env else ""


def _positive(environ: Mapping[str, str], var: str, problems: list[str]) -> float | None:
    raw = environ.get(var, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        problems.append(f"{var}={raw[:40]!r} is not a positive number; ignored (the default applies)")
        return None
    return value


def resolve(environ: Mapping[str, str], connect_timeout_s: float, tool_timeout_s: float) -> McpLimits:
    """The limits of this run: the settings' values, unless the environment names others."""
    problems: list[str] = []
    connect = _positive(environ, CONNECT_VAR, problems)
    tool = _positive(environ, TOOL_VAR, problems)
    tokens = _positive(environ, OUTPUT_VAR, problems)
    return McpLimits(
        connect_timeout_s=connect / 1000 if connect is not None else connect_timeout_s,
        tool_timeout_s=tool / 1000 if tool is not None else tool_timeout_s,
        max_output_tokens=int(tokens) if tokens is not None else DEFAULT_OUTPUT_TOKENS,
        connect_from_env=connect is not None,
        problems=tuple(problems),
    )
