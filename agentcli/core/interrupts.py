"""Keeping the transcript valid when a run stops early (Esc, a cancelled task, an error, a tripped guard): every
tool call of the last assistant message gets a result, the text a broken stream brought is kept, and a prompt
the model never answered is marked as interrupted. Valid for every provider, so the next request is accepted."""

from __future__ import annotations

from agentcli.core.assemble import MessageBuilder
from agentcli.core.events import AssistantMessage, ToolResultsMessage
from agentcli.core.seams import Transcript
from agentcli.llm.messages import Message, ToolResultBlock, ToolUseBlock

INTERRUPTED = "[Request interrupted by user]"


def answer_unrun(agent: Transcript, calls: list[ToolUseBlock], text: str) -> ToolResultsMessage:
    """Each of `calls` answered with `text`, as an error result: they were never run."""
    msg = Message("user", tuple(ToolResultBlock(c.id, text, is_error=True) for c in calls))
    agent.append(msg)
    return ToolResultsMessage(msg)


def mark_interrupted(agent: Transcript) -> None:
    """A run stopped by the user: its unanswered calls are answered, and a prompt (or tool results) the model
    never replied to is followed by the marker Claude Code writes, so the next request does not read as one
    merged prompt but as "this was interrupted, now this"."""
    last = agent.messages[-1] if agent.messages else None
    if last is not None and last.role == "assistant" and last.tool_uses:
        answer_unrun(agent, last.tool_uses, INTERRUPTED)
    elif last is not None and last.role == "user" and last.text != INTERRUPTED:
        agent.append(Message.user(INTERRUPTED))


def repair_after_interrupt(agent: Transcript) -> None:
    """Every tool call of the last assistant message gets a result."""
    last = agent.messages[-1] if agent.messages else None
    if last is not None and last.role == "assistant" and last.tool_uses:
        answer_unrun(agent, last.tool_uses, INTERRUPTED)


def keep_partial(agent: Transcript, builder: MessageBuilder) -> AssistantMessage | None:
    """A broken or cancelled stream: keep the text and thinking that arrived (never half a tool call)."""
    if not builder.output_seen:
        return None
    partial = builder.message(complete_calls_only=True)
    partial = Message("assistant", tuple(b for b in partial.content if not isinstance(b, ToolUseBlock)))
    if not partial.content:
        return None
    model = agent.options.model
    agent.append(partial, partial=True, model=model, usage=builder.usage.to_dict())
    return AssistantMessage(partial, builder.usage, model, "error", partial=True)
