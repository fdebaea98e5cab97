"""Make a stored transcript valid for any provider again after an interrupted run.

Rules: the first message is the user's; roles alternate (neighbours with the same role are merged); every
tool call is answered by exactly one result in the next message (a missing one gets a synthetic
"interrupted" error result, an orphan result is dropped); tool results come first in their message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.llm.messages import ContentBlock, Message, ToolResultBlock, ToolUseBlock

INTERRUPTED = ("Interrupted: the session ended before this tool call returned a result; "
               "its effects, if any, are unknown.")
RESUME_NOTE = "[the conversation was resumed from a point after its start]"


@dataclass(slots=True)
class Repaired:
    messages: list[Message]
    notes: list[str] = field(default_factory=list)
    tail: Message | None = None  # synthetic results that answer the last message's dangling tool calls


def repair(messages: list[Message]) -> Repaired:
    out: list[Message] = []
    notes: list[str] = []
    pending: list[ToolUseBlock] = []
    for m in messages:
        if not m.content:
            notes.append("dropped an empty message")
            continue
        if m.role == "assistant":
            if pending:
                out.append(_answer(pending, (), notes))
                pending = []
            if not out:
                out.append(Message.user(RESUME_NOTE))
                notes.append("the transcript started with an assistant message; added a user note")
            if out[-1].role == "assistant":
                out[-1] = Message("assistant", out[-1].content + m.content)
                notes.append("merged two assistant messages in a row")
            else:
                out.append(m)
            pending = out[-1].tool_uses
            continue
        fixed = _answer(pending, m.content, notes) if pending else _drop_orphans(m.content, notes)
        pending = []
        if not fixed.content:
            continue
        if out and out[-1].role == "user":
            out[-1] = Message("user", _results_first(out[-1].content + fixed.content))
        else:
            out.append(fixed)
    tail = None
    if pending:
        tail = _answer(pending, (), notes)
        out.append(tail)
    return Repaired(out, notes, tail)


def _answer(calls: list[ToolUseBlock], content: tuple[ContentBlock, ...], notes: list[str]) -> Message:
    """A user message answering every call in order (synthetic results for the missing ones)."""
    given = {b.tool_use_id: b for b in content if isinstance(b, ToolResultBlock)}
    results: list[ContentBlock] = []
    for call in calls:
        block = given.pop(call.id, None)
        if block is None:
            notes.append(f"tool call {call.name} ({call.id}) had no result: marked interrupted")
            block = ToolResultBlock(call.id, INTERRUPTED, is_error=True)
        results.append(block)
    if given:
        notes.append(f"dropped {len(given)} tool result(s) for unknown calls")
    rest = tuple(b for b in content if not isinstance(b, ToolResultBlock))
    return Message("user", (*results, *rest))


def _drop_orphans(content: tuple[ContentBlock, ...], notes: list[str]) -> Message:
    kept = tuple(b for b in content if not isinstance(b, ToolResultBlock))
    if len(kept) != len(content):
        notes.append(f"dropped {len(content) - len(kept)} tool result(s) with no tool call before them")
    return Message("user", kept)


def _results_first(content: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
    results = tuple(b for b in content if isinstance(b, ToolResultBlock))
    return (*results, *(b for b in content if not isinstance(b, ToolResultBlock)))
