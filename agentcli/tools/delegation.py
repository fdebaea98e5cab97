"""What the Task tools need of the session's subagent runner (agentcli.agents.runner.SubagentRunner), as typed
Protocols: the tools get the runner through their context (`ToolContext.subagents`), never by import."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Named(Protocol):
    @property
    def name(self) -> str: ...


class ChildResult(Protocol):
    """How a subagent's run ended (agentcli.core.events.RunResult)."""

    @property
    def is_error(self) -> bool: ...

    @property
    def error_message(self) -> str | None: ...

    @property
    def result(self) -> str: ...


class ChildJob(Protocol):
    """A subagent running in the background (agentcli.agents.runner.BackgroundTask)."""

    @property
    def task_id(self) -> str: ...

    @property
    def definition(self) -> Named: ...

    @property
    def status(self) -> str: ...

    @property
    def answer(self) -> str: ...

    def text_so_far(self) -> str: ...


class SubagentFactory(Protocol):
    """Runs subagents by type name: to their end, or in the background."""

    @property
    def definitions(self) -> Mapping[str, Any]: ...

    @property
    def background(self) -> Mapping[str, ChildJob]: ...

    async def run(self, name: str, prompt: str) -> ChildResult: ...

    def start(self, name: str, description: str, prompt: str) -> ChildJob: ...

    async def stop(self, task_id: str) -> ChildJob | None: ...

    async def settle(self) -> bool:
        """Wait until a background subagent's answer is waiting to be told (True), or none runs (False)."""
        ...

    async def aclose(self) -> None: ...
