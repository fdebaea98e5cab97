"""Narrow, read-mostly views of a session's parts, as the `Agent` hands them to front ends (the REPL's /mcp, /agents
and `!command`, the SDK's MCP requests). Front ends see these, never the tool context behind them: what they may
do with a part is what its view declares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.core.events import AgentEvent

if TYPE_CHECKING:
    from agentcli.sandbox.core import Sandbox
    from agentcli.tools.base import Tool


class Observer(Protocol):
    """Sees every event a run yields, in order (telemetry); `close` is called once when the session ends."""

    def feed(self, event: AgentEvent) -> None: ...

    def close(self) -> None: ...


class PromptServer(Protocol):
    """An MCP server offering prompts (`/mcp__server__prompt`)."""

    async def get_prompt(self, name: str, args: dict[str, str], timeout_s: float) -> dict[str, Any]: ...


class McpServers(Protocol):
    """The session's MCP servers (agentcli.mcp.manager.McpManager): status, tools, prompts, reconnect."""

    @property
    def connections(self) -> Mapping[str, Any]:
        """Servers that connected or failed, by name."""
        ...

    async def refresh(self) -> None:
        """Wait (bounded) for servers still connecting, as the first request would."""

    def status_lines(self) -> list[str]: ...

    def all_tools(self) -> list[Tool]: ...

    def prompts(self) -> Sequence[tuple[str, PromptServer, dict[str, Any]]]:
        """(`mcp__server__prompt`, its server, the prompt's description) of every connected server."""
        ...

    async def reconnect(self, name: str | None = None) -> list[str]:
        """Restart one server (or every failed one); the names restarted."""
        ...


class Subagents(Protocol):
    """The session's subagent runner (agentcli.agents.runner.SubagentRunner): definitions and background jobs."""

    @property
    def definitions(self) -> Mapping[str, Any]: ...

    @property
    def background(self) -> Mapping[str, Any]:
        """Background subagents by task id (their `status`, `answer`, `text_so_far()`)."""
        ...

    async def stop(self, task_id: str) -> Any: ...

    async def settle(self) -> bool:
        """Wait until a background subagent's answer is waiting to be told (True), or none runs (False)."""
        ...

    async def aclose(self) -> None: ...


class ShellScope(Protocol):
    """What a command the user runs themselves (`!cmd`) shares with the agent's own: the session's cleaned
    environment and its sandbox."""

    @property
    def env(self) -> dict[str, str] | None: ...

    @property
    def sandbox(self) -> Sandbox | None: ...
