"""Compaction, the driving part: run the phases of agentcli.core.compaction on an Agent's history, make the
one summarising request, record the result in the session, and say so with events.

The result is written as one `compaction` record holding the new history (summary message + kept tail), so a
resumed session starts from its last compaction with no model call; a crash before that line is whole leaves
the session as it was. Triggers: `auto` when the next request would pass the limit (`threshold`) or the
provider said the prompt is too long (`overflow`); `manual` for `/compact [focus]`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from agentcli.core.assemble import MessageBuilder
from agentcli.core.context import default_limit as default_limit  # re-exported: decided on every turn, there
from agentcli.core.events import AgentEvent, CompactBoundary, CompactionStarted, TodoItem
from agentcli.core.hooks import HookOutcome, fire
from agentcli.core.seams import Compacting
from agentcli.core.todos import todos_data as todos_data  # both re-exported: callers import them here
from agentcli.core.todos import todos_from as todos_from
from agentcli.core.tokens import estimate_usage
from agentcli.errors import ContextOverflowError
from agentcli.llm.messages import Message, Usage
from agentcli.llm.request import ModelRequest, Provider
from agentcli.record import record

PRUNE_PROTECT = 0.4  # of the limit: recent results pruning never touches
PRUNE_ENOUGH = 0.6  # an automatic compaction whose prune phase got below this needs no summary
TAIL_BUDGET = 0.3  # of the limit: the recent tail kept verbatim after a summary
TRANSCRIPT_BUDGET = 0.7  # of the window: what the summariser may read
FIT = 0.8  # of the limit: what summary + tail must fit in, or truncate runs
COMPACTION = "compaction"

Trigger = Literal["auto", "manual"]


@record
class Outcome:
    messages: list[Message]
    phases: tuple[str, ...]
    summary: str | None
    pruned: int
    dropped: int
    request: tuple[str, Usage] | None = None  # the summarising request's model and usage


async def compact(agent: Compacting, trigger: Trigger, reason: str, focus: str | None = None
                  ) -> AsyncIterator[AgentEvent]:
    """Compact `agent`'s history now; yields CompactionStarted, then CompactBoundary once it is recorded."""
    pre = agent.context_tokens()
    yield CompactionStarted(trigger, reason, pre)
    payload = agent.hook_payload(trigger=trigger, custom_instructions=focus or "")
    async for ev in fire(agent.hooks, agent.sink, "PreCompact", trigger, payload):
        if not isinstance(ev, HookOutcome):  # PreCompact cannot stop a compaction (Claude Code's contract)
            yield ev
    limit = agent.compact_limit() or max(pre, 4_000)
    if reason == "overflow":  # the provider refused about `pre` tokens: its real window is smaller than that
        limit = min(limit, int(pre * FIT))
    outcome = await _phases(agent, limit, reason, focus)
    post = agent.request_tokens(outcome.messages)
    data: dict[str, Any] = {
        "trigger": trigger, "reason": reason, "phases": list(outcome.phases), "pre_tokens": pre,
        "post_tokens": post, "pruned": outcome.pruned, "dropped": outcome.dropped, "focus": focus,
        "summary": outcome.summary, "todos": todos_data(agent.todos), "rules": session_rules(agent),
    }
    if outcome.request is not None:  # priced like any request (the usage ledger reads these three)
        model, usage = outcome.request
        data.update(model=model, usage=usage.to_dict(), cost_usd=agent.options.cost_fn(model, usage))
    data["messages"] = [m.to_dict() for m in outcome.messages]
    agent.sink.record(COMPACTION, data)
    agent.replace_history(outcome.messages, post)
    if not agent.options.subagent:
        agent.set_session_start("compact")  # SessionStart hooks (source "compact") see the next prompt
    agent.sink.end_turn()
    yield CompactBoundary(trigger, reason, pre, post, outcome.phases, outcome.pruned, outcome.dropped)


async def _phases(agent: Compacting, limit: int, reason: str, focus: str | None) -> Outcome:
    from agentcli.core import compaction as cz  # imported when a compaction runs: every run imports this module

    original = list(agent.messages)
    size = agent.message_size
    pruned, n = cz.prune(original, int(limit * PRUNE_PROTECT), size)
    phases = ["prune"] if n else []
    if reason == "threshold" and n and agent.request_tokens(pruned) <= limit * PRUNE_ENOUGH:
        return Outcome(pruned, tuple(phases), None, n, 0)
    tail_budget = int(limit * TAIL_BUDGET)
    if reason == "manual":  # asked for: summarise most of it, however small the conversation still is
        tail_budget = min(tail_budget, int(cz.messages_tokens(pruned, size) * TAIL_BUDGET))
    start = cz.tail_start(pruned, tail_budget, size)
    head, tail = pruned[:start], pruned[start:]
    if not head:
        return Outcome(pruned, tuple(phases), None, n, 0)
    summary, model, usage = await summarise(agent, head, focus)
    phases.append("summarise")
    everything = cz.prompts(original)
    latest = everything[-1] if everything else None
    carried = cz.Carried(
        first=cz.first_prompt(original),
        latest=latest if latest not in cz.prompts(tail) else None,
        todos=render_todos(agent.todos),
        memory=agent.nested_memory_texts(),
    )
    fixed = agent.request_tokens([])
    result, dropped = cz.truncate(cz.summary_message(summary, carried), tail, max(1, int(limit * FIT) - fixed), size)
    if dropped or result[1:] != tail:
        phases.append("truncate")
    return Outcome(result, tuple(phases), summary, n, dropped, (model, usage))


async def summarise(agent: Compacting, head: list[Message], focus: str | None) -> tuple[str, str, Usage]:
    """One model request (the session's model, or `compact_model`) that turns `head` into a summary. A
    summariser that says its own prompt is too long gets half the transcript, once."""
    provider, model = agent.compaction_provider()
    window = agent.window() or int((agent.compact_limit() or 32_000) / 0.8)
    max_tokens = max(256, min(agent.options.max_tokens, 4_096, window // 8))
    budget = int(window * TRANSCRIPT_BUDGET) - max_tokens
    from agentcli.core import compaction as cz

    for attempt in (1, 2):
        text, _ = cz.transcript(head, max(500, budget))
        request = ModelRequest(model=model, system=cz.SUMMARY_SYSTEM,
                               messages=(Message.user(cz.summary_request_text(text, focus)),), max_tokens=max_tokens)
        try:
            reply, usage = await _ask(provider, request)
        except ContextOverflowError:
            if attempt == 2:
                raise
            budget //= 2
            continue
        agent.count_usage(model, usage)
        return reply, model, usage
    raise AssertionError("unreachable")


async def _ask(provider: Provider, request: ModelRequest) -> tuple[str, Usage]:
    builder = MessageBuilder()
    stream = provider.stream(request)
    try:
        async for ev in stream:
            builder.feed(ev)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    msg = builder.message()
    usage = builder.usage
    if usage.estimated or usage == Usage():
        usage = estimate_usage(request, msg)
    return msg.text, usage


def session_rules(agent: Compacting) -> list[str]:
    """Rules allowed "for this session" so far: a resume that reads from this record on restores them."""
    rules = getattr(agent.policy, "session_rules", None)
    return [str(r) for r in rules()] if callable(rules) else []


def render_todos(todos: tuple[TodoItem, ...]) -> str:
    marks = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
    return "\n".join(f"- {marks.get(t.status, '[ ]')} {t.content} ({t.status})" for t in todos)
