"""Building subagents: the child Agent a Task call runs, from the parent's parts and an agent definition.

A child gets its own message history, system prompt (the definition's body), tool set (the definition's tools
that the parent also has; Task only while under the depth limit), model (the definition's, on any configured
provider, else the parent's) and sidechain transcript. Its permission policy is a copy of the parent's bound to
the child's own tool context — the same rules and mode, never more — and its approvals reach the parent's
approver labelled with its name. Nothing is re-imported or re-read: settings, rules and definitions are the
parent's, already loaded.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import field
from typing import Any

from agentcli.agents.checks import NOT_FOR_CHILDREN, tools_left_out
from agentcli.agents.definitions import AgentDefinition
from agentcli.agents.runner import SubagentRunner
from agentcli.assembly import selection
from agentcli.assembly.toolsseen import known_dropped, watch_tools
from agentcli.core.hooks import Hooks
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import Approval, ApprovalRequest, Approver, Policy
from agentcli.core.prompt import system_prompt
from agentcli.core.sink import NullSink, SessionSink
from agentcli.record import record
from agentcli.settings.config import Settings
from agentcli.tools.base import Tool, ToolContext
from agentcli.tools.registry import SUBAGENT_TOOLS, ToolRegistry


class LabelledApprover:
    """The parent's approver, told which subagent is asking."""

    def __init__(self, inner: Approver, agent: str) -> None:
        self.inner = inner
        self.agent = agent
        self.name = getattr(inner, "name", "user")
        self.interactive = inner.interactive

    async def approve(self, request: ApprovalRequest) -> Approval:
        label = (request.agent and f"{self.agent} › {request.agent}") or self.agent
        return await self.inner.approve(dataclasses.replace(request, agent=label))


@record(frozen=False)
class Family:
    """What every child of one session shares with its parent."""

    settings: Settings
    selection: selection.Selection
    definitions: dict[str, AgentDefinition]
    approver: Approver
    hooks: Hooks | None
    parent_session: str | None  # None: no transcript is stored (--no-session-persistence)
    told: set[str] = field(default_factory=set)  # the children's start-up notices given so far: each once a session


def make_runner(
    family: Family, policy: Callable[[], Policy], ctx: ToolContext, tools: Callable[[], list[Tool]], depth: int
) -> SubagentRunner:
    """The runner behind the Task tools of an agent at `depth` (the main agent is 0); `policy` and `tools` give
    that agent's policy and tools at the moment a child starts."""

    async def factory(definition: AgentDefinition, tool_use_id: str) -> tuple[Agent, list[str]]:
        return await build_child(family, definition, tool_use_id, policy(), ctx, tools(), depth + 1)

    return SubagentRunner(family.definitions, factory, ctx.inbox,
                          max_parallel=family.settings.session.max_parallel_subagents)


async def build_child(
    family: Family, definition: AgentDefinition, tool_use_id: str, parent_policy: Policy, parent_ctx: ToolContext,
    parent_tools: list[Tool], depth: int,
) -> tuple[Agent, list[str]]:
    """The child, and its start-up notices not given yet this session (tools its definition names that it cannot
    have)."""
    from agentcli.assembly import models

    settings = family.settings
    sel = family.selection
    if definition.model:
        m = settings.model
        sel = selection.select(definition.model, None, None, m.providers, request_timeout_s=m.request_timeout_s,
                               max_retries=m.max_retries, model_overrides=m.overrides)
    # The child's own: what it has read, its shells, its background results, its model (set below); the rest
    # (sandbox, web settings, the approvals to run unsandboxed) is the session's.
    ctx = dataclasses.replace(parent_ctx, read_files={}, shells={}, inbox=[], subagents=None, model=None,
                              sandbox_failure_told=False, _redactor=None)
    policy = _narrowed(parent_policy, ctx)
    tools, left_out = _child_tools(definition, parent_tools, depth, settings.session.subagent_max_depth)
    notices = [text for text in left_out if text not in family.told]
    family.told.update(notices)
    registry = ToolRegistry([], extra=tools)
    if any(t.name == "Task" for t in tools):
        ctx.subagents = make_runner(family, lambda: policy, ctx, registry.tools, depth)
    options = AgentOptions(
        model=sel.model,
        provider_name=sel.config.name,
        system_prompt=system_prompt(settings.cwd, settings.project_root, replace=definition.prompt),
        max_turns=definition.max_turns or settings.session.subagent_max_turns,
        max_budget_usd=settings.session.max_budget_usd,
        max_tool_calls_per_turn=settings.session.max_tool_calls_per_turn,
        max_tokens=settings.model.max_tokens,
        cost_fn=models.cost_fn(settings.model.prices, sel.pricing_provider),
        context_window_fn=models.context_window_fn(settings.model.prices),
        subagent=True,
        await_background=True,  # its background children end with it: it waits for their answers
        tools_unseen=known_dropped(sel),
    )
    provider = models.make_provider(sel)
    if sel is not family.selection:  # its own model: checked, as the parent's is, for a server dropping the tools
        provider = watch_tools(provider, sel)
    child = Agent(provider=provider, registry=registry, policy=policy,
                  approver=LabelledApprover(family.approver, definition.name), ctx=ctx, options=options,
                  sink=_sidechain(family, tool_use_id, definition.name, sel), hooks=family.hooks)
    ctx.model = child  # a Read of an image asks the child's model
    return child, notices


def _narrowed(parent: Policy, ctx: ToolContext) -> Policy:
    """The parent's rules, judged against the child's own working directory; the mode is the session's (the copy
    shares the parent's state), so a child follows the mode as the sandbox it shares does."""
    policy = copy.copy(parent)
    bind: Any = getattr(policy, "bind", None)
    if bind is not None:
        bind(ctx)
    return policy


def _child_tools(definition: AgentDefinition, parent: list[Tool], depth: int, max_depth: int
                 ) -> tuple[list[Tool], list[str]]:
    """The child's tools, and a notice for each one its definition names that it cannot have (never silent)."""
    wanted = set(definition.tools) if definition.tools is not None else {t.name for t in parent}
    out = [t for t in parent if t.name in wanted and t.name not in NOT_FOR_CHILDREN]
    if depth >= max_depth:
        out = [t for t in out if t.name not in SUBAGENT_TOOLS]
    return out, tools_left_out(definition, {t.name for t in parent}, depth < max_depth, max_depth)


def _sidechain(family: Family, tool_use_id: str, agent: str, sel: selection.Selection) -> SessionSink:
    if family.parent_session is None:
        return NullSink(tool_use_id)
    from agentcli.session.store import open_sidechain

    settings = family.settings
    return open_sidechain(settings.project_root, family.parent_session, tool_use_id, agent, cwd=settings.cwd,
                          model=sel.model, provider=sel.config.name, secrets=settings.secrets)
