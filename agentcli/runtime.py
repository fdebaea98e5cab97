"""Builds a ready Agent from Settings: provider, tools, policy, tool context, session and system prompt.

Shared by every front end (headless printers, REPL, Python API), so they differ only in how they show events
and who answers approvals.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentcli import selection
from agentcli.config import Settings
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.messages import Usage
from agentcli.core.permissions import Approver, Policy, SimplePolicy
from agentcli.core.prompt import system_prompt
from agentcli.errors import ConfigError, UsageError
from agentcli.firstrun import anything_configured, first_run_message, probe_local
from agentcli.providers import catalog
from agentcli.providers.base import Effort, Provider
from agentcli.session.store import OpenedSession
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import DEFAULT_TOOLS, ToolRegistry


async def select_provider(settings: Settings) -> selection.Selection:
    """The provider and model for this run; on a first run with nothing configured, a ConfigError that says
    how to configure one and which local servers are listening."""
    if not anything_configured(settings.model, settings.provider, settings.base_url):
        found = await probe_local()
        raise ConfigError(first_run_message(found), code="no_provider")
    return selection.select(
        settings.model, settings.provider, settings.base_url, settings.providers,
        request_timeout_s=settings.request_timeout_s, max_retries=settings.max_retries,
    )


def make_provider(sel: selection.Selection) -> Provider:
    from agentcli.providers.factory import make_provider as factory

    return factory(sel.config)


def cost_fn(prices: dict[str, dict[str, Any]], provider: str) -> Callable[[str, Usage], float]:
    def cost(model: str, usage: Usage) -> float:
        return catalog.cost_usd(model, usage, prices, provider=provider)

    return cost


def context_window_fn(prices: dict[str, dict[str, Any]]) -> Callable[[str], int | None]:
    def window(model: str) -> int | None:
        return catalog.context_window(model, prices)

    return window


def tool_context(settings: Settings) -> ToolContext:
    root = settings.project_root
    return ToolContext(
        project_root=root,
        add_dirs=settings.add_dirs,
        shell_cwd=settings.cwd,
        tool_timeout_s=settings.tool_timeout_s,
        env=dict(os.environ),
        secrets=settings.secrets,
    )


def make_policy(settings: Settings) -> Policy:
    return SimplePolicy(settings.permission_mode, settings.allowed_tools, settings.disallowed_tools)


def open_sink(settings: Settings, sel: selection.Selection) -> OpenedSession:
    """The session to write to and the history to continue from (see agentcli.session.store)."""
    from agentcli.session.store import open_session

    if settings.resume == "":
        raise UsageError("--resume needs a session id or name here", hint="agentcli sessions list shows them")
    return open_session(
        settings.project_root,
        cwd=settings.cwd,
        model=sel.model,
        provider=sel.config.name,
        continue_=settings.continue_,
        resume=settings.resume,
        fork_session=settings.fork_session,
        session_id=settings.session_id,
        no_persistence=settings.no_session_persistence,
        name=settings.name,
        secrets=settings.secrets,
    )


def build_prompt(settings: Settings) -> str:
    return system_prompt(
        settings.cwd, settings.project_root, append=settings.append_system_prompt, replace=settings.system_prompt
    )


@dataclass(slots=True)
class Built:
    """A ready agent plus what front ends show around it: the selection, the session's notices and replay."""

    agent: Agent
    selection: selection.Selection
    session: OpenedSession


async def build(settings: Settings, approver: Approver) -> Built:
    sel = await select_provider(settings)
    opened = open_sink(settings, sel)
    try:
        provider = make_provider(sel)
    except BaseException:
        opened.close()
        raise
    options = AgentOptions(
        model=sel.model,
        provider_name=sel.config.name,
        system_prompt=build_prompt(settings),
        max_turns=settings.max_turns,
        max_budget_usd=settings.max_budget_usd,
        max_tool_calls_per_turn=settings.max_tool_calls_per_turn,
        max_tokens=settings.max_tokens,
        effort=_effort(settings.effort),
        cost_fn=cost_fn(settings.prices, sel.pricing_provider),
        context_window_fn=context_window_fn(settings.prices),
    )
    agent = Agent(
        provider=provider, registry=ToolRegistry(DEFAULT_TOOLS), policy=make_policy(settings), approver=approver,
        ctx=tool_context(settings), options=options, sink=opened.sink, history=opened.history,
    )
    return Built(agent, sel, opened)


async def build_agent(settings: Settings, approver: Approver) -> Agent:
    return (await build(settings, approver)).agent


def _effort(value: str | None) -> Effort | None:
    if value in ("low", "medium", "high"):
        return value  # type: ignore[return-value]
    return None
