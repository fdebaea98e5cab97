"""Keeping the transcript valid when a run stops early (Esc, a cancelled task, an error, a tripped guard): every
tool call of the last assistant message gets a result, the text a broken stream brought is kept, and a prompt
the model never answered is marked as interrupted. Valid for every provider, so the next request is accepted.

Each helper returns the message to add (or None); the loop adds it, so the history has one writer."""

from __future__ import annotations

from collections.abc import Sequence

from agentcli.core.assemble import MessageBuilder
from agentcli.llm.messages import Message, ToolResultBlock, ToolUseBlock

INTERRUPTED = "[Request interrupted by user]"


def unrun_results(calls: Sequence[ToolUseBlock], text: str) -> Message:
    """Each of `calls` answered with `text`, as an error result: they were never run."""
    return Message("user", tuple(ToolResultBlock(c.id, text, is_error=True) for c in calls))


def repair(messages: Sequence[Message], *, by_user: bool) -> Message | None:
    """What follows `messages` after a run stopped early: results for the last assistant message's unanswered
    calls; when the user stopped it (`by_user`), the marker Claude Code writes after a prompt (or tool results)
    the model never replied to, or after the part of a reply that arrived before the stop (a stream cut by Esc
    keeps its text, not its half-made calls), so the next request does not read as one merged prompt but as "this
    was interrupted, now this"."""
    last = messages[-1] if messages else None
    if last is not None and last.role == "assistant" and last.tool_uses:
        return unrun_results(last.tool_uses, INTERRUPTED)
    if by_user and last is not None and (last.role == "assistant" or last.text != INTERRUPTED):
        return Message.user(INTERRUPTED)
    return None


def partial_message(builder: MessageBuilder) -> Message | None:
    """A broken or cancelled stream: the text and thinking that arrived (never half a tool call), if any."""
    if not builder.output_seen:
        return None
    partial = builder.message(complete_calls_only=True)
    partial = Message("assistant", tuple(b for b in partial.content if not isinstance(b, ToolUseBlock)))
    return partial if partial.content else None
