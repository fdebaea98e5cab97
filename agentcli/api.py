"""The Python API: the same agent and events the CLI uses, for scripts and other programs.

    import asyncio, agentcli.api as api

    async def main() -> None:
        async for event in api.query("fix the failing test", model="anthropic/claude-sonnet-4-5",
                                     permission_mode="acceptEdits"):
            print(event)

    asyncio.run(main())

Events are the dataclasses of agentcli.core.events; the last one is always `RunFinished` (also when the session
could not start: then it is the only one, with the error's code and exit status). Start-up notices (project
settings not trusted, no sandbox on this system …) are `Notice` events right after `SessionStarted`, as the CLI
shows them; a subagent's notices come inside the `SubagentEvent` that carries its events (`innermost()` gives its
name, its Task call's id and the `Notice`). Without an `approver`, anything that would need a person is denied
(as with `agentcli -p`).
Runs go through agentcli.driver, as every front end's do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

from agentcli.agents.definitions import AgentDefinition
from agentcli.core.events import AgentEvent
from agentcli.core.permissions import Approver, DenyingApprover
from agentcli.driver import Driver
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
    if agents:
        import dataclasses

        settings["agents"] = tuple(dataclasses.replace(d, name=name, source="api") for name, d in agents.items())
    resolved = load_settings(Path(cwd) if cwd is not None else Path.cwd(), settings)
    driver = Driver(resolved, approver or DenyingApprover())
    try:
        async with aclosing(driver.run(prompt)) as events:
            async for ev in events:
                yield ev
    finally:
        await driver.aclose()
