"""Answers to the control requests the SDK sends, each through the Agent's command API.

    initialize            hooks registered in code, subagents defined in code (agentcli.sdkio.agents) → models …
    interrupt             stop the running turn as Esc does; its result line still comes
    set_permission_mode   agent.set_mode (default, acceptEdits, plan; bypassPermissions only in a session started
                          in it or with --allow-dangerously-skip-permissions), and dontAsk (a gate on the approver:
                          what no rule allows is denied without asking the SDK); others refused
    set_model             another model from the next turn on (None: the session's default)
    mcp_status            the MCP servers and their state
    get_context_usage     the next request's size against the window
    rewind_files          the files as they were at a user message (needs the session's checkpoints)

Anything else gets an error response from the channel.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.core.permissions import DontAskGate
from agentcli.errors import UsageError
from agentcli.sdkio.channel import ControlChannel, Handler

if TYPE_CHECKING:
    from agentcli.assembly.runtime import Built
    from agentcli.core.loop import Agent
    from agentcli.settings.config import Settings


class StreamSession(Protocol):
    """What the handlers use of the stream-json session (agentcli.sdkio.session, which registers them)."""

    settings: Settings
    channel: ControlChannel
    start_build: asyncio.Event  # set: build now (initialize came, or a request that needs the agent)
    ready: asyncio.Event  # the agent is built
    building: bool  # the build has begun: an initialize now comes too late to shape it
    init_agents: tuple[Any, ...]
    init_callbacks: list[Any]
    deferred: list[Any]  # work for between turns, as coroutine functions

    @property
    def built(self) -> Built | None: ...

    @property
    def agent(self) -> Agent: ...

    @property
    def turn_running(self) -> bool: ...

    def warn(self, text: str, code: str) -> None: ...

    def interrupt(self) -> bool: ...


def register(session: StreamSession) -> None:
    h = _Handlers(session)
    channel = session.channel
    channel.handle("initialize", h.initialize)
    for subtype, handler in (("interrupt", h.interrupt), ("set_permission_mode", h.set_permission_mode),
                             ("set_model", h.set_model), ("mcp_status", h.mcp_status),
                             ("get_context_usage", h.get_context_usage), ("rewind_files", h.rewind_files)):
        channel.handle(subtype, _when_ready(session, handler))
    from agentcli.mcp.control import handlers as mcp_handlers  # mcp_status (Claude Code's shape), reconnect, toggle

    for mcp_subtype, mcp_handler in mcp_handlers(lambda: session.agent.mcp).items():
        channel.handle(mcp_subtype, _when_ready(session, mcp_handler))


def _when_ready(session: StreamSession, handler: Handler) -> Handler:
    """Requests about the agent wait until it is built (they may arrive while it is being built)."""
    async def answer(req: dict[str, Any]) -> dict[str, Any] | None:
        session.start_build.set()  # a caller that sends no initialize must not wait for one
        await session.ready.wait()
        return await handler(req)

    return answer


class _Handlers:
    def __init__(self, session: StreamSession) -> None:
        self.s = session
        self.initialized = False
        self.started_mode: str | None = None  # the session's mode before the SDK first changed it

    async def initialize(self, req: dict[str, Any]) -> dict[str, Any]:
        """Subagents and hooks go into the build, which waits for this request; the answer waits for the build."""
        from agentcli.sdkio.agents import sdk_agents
        from agentcli.sdkio.hooks import parse_callbacks

        if self.initialized:
            raise UsageError("already initialized")
        self.initialized = True
        late = self.s.building  # a user line came first: the agent is built without what this request brings
        try:
            self.s.init_callbacks, warnings = parse_callbacks(req.get("hooks"))
            self.s.init_agents = sdk_agents(req.get("agents"))
        finally:
            self.s.start_build.set()
        await self.s.ready.wait()
        agent = self.s.agent
        if late and (self.s.init_callbacks or self.s.init_agents):
            warnings.append("initialize came after the first user message: its hooks and agents were not applied")
        from agentcli.mcp.control import declare_sdk_servers  # the TypeScript SDK names its servers here

        warnings += declare_sdk_servers(req.get("sdkMcpServers"), agent, self.s.settings, self.s.channel.request)
        for text in warnings:
            self.s.warn(text, "unsupported")
        model = agent.options.model
        return {
            "commands": [],
            "agents": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [{"value": model, "displayName": model, "description": f"{agent.options.provider_name}"}],
            "account": {},
            "pid": __import__("os").getpid(),
            "hook_on_failure_supported": True,
            "hooks_applied": not late,
        }

    async def interrupt(self, req: dict[str, Any]) -> dict[str, Any]:
        self.s.interrupt()
        return {"still_queued": []}

    async def set_permission_mode(self, req: dict[str, Any]) -> dict[str, Any]:
        mode = req.get("mode")
        if not isinstance(mode, str):
            raise UsageError("set_permission_mode needs a mode")
        gate = self.s.agent.approver
        if self.started_mode is None:  # as built: a flag, the preset or a (trusted) settings file chose it
            self.started_mode = self.s.agent.mode
        if mode == "bypassPermissions" and self.started_mode != mode and not self.s.settings.permissions.allow_bypass:
            # Claude Code's rule: bypass is entered mid-session only when the session was started in it or with
            # --allow-dangerously-skip-permissions (the SDK's allowDangerouslySkipPermissions); a caller that can
            # write control lines must not be able to switch off every question.
            raise UsageError("bypassPermissions cannot be entered in this session", code="permission_mode",
                             hint="start it with --permission-mode bypassPermissions or "
                                  "--allow-dangerously-skip-permissions")
        if mode == "dontAsk" and not isinstance(gate, DontAskGate):
            raise UsageError("dontAsk cannot be entered in this session",
                             hint="start it with --permission-mode dontAsk")
        self.s.agent.set_mode("default" if mode == "dontAsk" else mode)
        if isinstance(gate, DontAskGate):
            gate.set(mode == "dontAsk")
        return {"mode": mode}

    async def set_model(self, req: dict[str, Any]) -> dict[str, Any]:
        name = req.get("model")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise UsageError("set_model needs a model name, or null for the session's first model")
        from agentcli.assembly.switching import prepare_model

        built = self.s.built
        assert built is not None
        switch = await prepare_model(self.s.settings, name if name is not None else built.selection)

        async def apply() -> None:
            await switch.apply(self.s.agent)

        if not self.s.turn_running:
            await apply()
        else:
            self.s.deferred.append(apply)  # the running turn keeps its provider; the next one uses the new
        return {"model": name or built.selection.model}

    async def mcp_status(self, req: dict[str, Any]) -> dict[str, Any]:
        servers = self.s.agent.registry.servers()
        return {"mcpServers": [{"name": name, "status": status} for name, status in servers]}

    async def get_context_usage(self, req: dict[str, Any]) -> dict[str, Any]:
        agent = self.s.agent
        total = agent.context_tokens()
        window = agent.window() or 0
        limit = agent.compact_limit() or window
        return {
            "categories": [{"name": "Messages and tools", "tokens": total, "color": "default"}],
            "totalTokens": total,
            "maxTokens": limit,
            "rawMaxTokens": window,
            "percentage": round(100 * total / limit, 1) if limit else 0.0,
            "model": agent.options.model,
            "isAutoCompactEnabled": limit > 0,
            "memoryFiles": [],
            "mcpTools": [],
            "agents": [],
        }

    async def rewind_files(self, req: dict[str, Any]) -> dict[str, Any]:
        from agentcli.sdkio.rewind import rewind_files

        target = req.get("user_message_id")
        if not isinstance(target, str) or not target:
            raise UsageError("rewind_files needs user_message_id")
        if self.s.turn_running:
            raise UsageError("rewind_files while a turn is running; wait for its result or interrupt it")
        assert self.s.built is not None
        return rewind_files(self.s.built, self.s.settings, target)
