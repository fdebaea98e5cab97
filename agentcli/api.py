"""The Python API: the same agent and events the CLI uses, for scripts and other programs.

    import asyncio, agentcli.api as api

    async def main() -> None:
        async for event in api.query("fix the failing test", model="anthropic/claude-sonnet-4-5",
                                     permission_mode="acceptEdits"):
            print(event)

    asyncio.run(main())

Events are the dataclasses of agentcli.core.events; the last one is always `RunFinished`. Without an
`approver`, anything that would need a person is denied (as with `agentcli -p`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agentcli.agents.definitions import AgentDefinition
from agentcli.core.events import AgentEvent
from agentcli.core.permissions import Approver, DenyingApprover
from agentcli.settings.config import load_settings


async def query(
    prompt: str,
    *,
    cwd: str | Path | None = None,
    approver: Approver | None = None,
    agents: dict[str, AgentDefinition] | None = None,
    **settings: Any,
) -> AsyncIterator[AgentEvent]:
    """Run one prompt; `settings` are Settings fields (model, permission_mode, allowed_tools, max_turns …).
    `agents` defines subagents in code, by name: `AgentDefinition(name, description, prompt, tools, model)`;
    they join (and override) the definition files, and the Task tool offers them."""
    from agentcli.assembly.runtime import build

    if agents:
        import dataclasses

        settings["agents"] = tuple(dataclasses.replace(d, name=name, source="api") for name, d in agents.items())
    resolved = load_settings(Path(cwd) if cwd is not None else Path.cwd(), settings)
    built = await build(resolved, approver or DenyingApprover())
    try:
        async for ev in built.agent.run(prompt):
            yield ev
    finally:
        await built.agent.aclose()
