"""Subagents the SDK defines in code (`ClaudeAgentOptions(agents=…)`), sent in `initialize.agents`:

    {"reviewer": {"description": "…", "prompt": "…", "tools": ["Read", "Grep"], "model": "haiku", "maxTurns": 5}}

They join the session's definitions (agentcli.agents.definitions) beside the files. A field agentcli cannot honour
(a subagent's own permission mode, MCP servers, skills …) is refused with its name, never silently dropped: the
caller may rely on it to restrict the subagent.
"""

from __future__ import annotations

from typing import Any

from agentcli.agents.definitions import NAME, AgentDefinition
from agentcli.errors import UsageError

KNOWN = ("description", "prompt", "tools", "model", "maxTurns")


def sdk_agents(data: Any) -> tuple[AgentDefinition, ...]:
    if data is None:
        return ()
    if not isinstance(data, dict):
        raise UsageError("initialize.agents must be an object of agent definitions")
    return tuple(_one(name, spec) for name, spec in data.items())


def _one(name: Any, spec: Any) -> AgentDefinition:
    if not isinstance(name, str) or not NAME.match(name):
        raise UsageError(f"agent name {name!r}: lowercase letters, digits, '-' and '_' only")
    if not isinstance(spec, dict):
        raise UsageError(f"agent {name}: a definition must be an object")
    extra = sorted(k for k, v in spec.items() if k not in KNOWN and v is not None)
    if extra:
        raise UsageError(f"agent {name}: {', '.join(extra)} not supported by agentcli (it takes {', '.join(KNOWN)})")
    description, prompt, model = spec.get("description"), spec.get("prompt"), spec.get("model")
    tools, turns = spec.get("tools"), spec.get("maxTurns")
    if not isinstance(description, str) or not description.strip() or not isinstance(prompt, str) or not prompt.strip():
        raise UsageError(f"agent {name}: description and prompt are required")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        raise UsageError(f"agent {name}: tools must be a list of tool names")
    if model is not None and not isinstance(model, str):
        raise UsageError(f"agent {name}: model must be a model name or 'inherit'")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 1):
        raise UsageError(f"agent {name}: maxTurns must be a positive integer")
    return AgentDefinition(name, description.strip(), prompt.strip(), tuple(tools) if tools is not None else None,
                           None if model in (None, "inherit") else model, turns, source="sdk")
