"""Subagents the SDK defines in code (`ClaudeAgentOptions(agents=…)`), sent in `initialize.agents`:

    {"reviewer": {"description": "…", "prompt": "…", "tools": ["Read", "Grep"], "model": "haiku", "maxTurns": 5}}

They join the session's definitions (agentcli.agents.definitions) beside the files. A field agentcli cannot honour
(a subagent's own permission mode, MCP servers, skills …) is refused with its name, never silently dropped: the
caller may rely on it to restrict the subagent.
"""

from __future__ import annotations

from typing import Any

from agentcli.agents.definitions import AgentDefinition, definitions_from_json
from agentcli.errors import UsageError


def sdk_agents(data: Any) -> tuple[AgentDefinition, ...]:
    """`initialize.agents`, read as Claude Code's `--agents` object is (one reader for both)."""
    if data is None:
        return ()
    try:
        return definitions_from_json(data, source="sdk")
    except ValueError as err:
        raise UsageError(f"initialize.agents: {err}") from None
