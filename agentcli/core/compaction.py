"""Compaction, the pure part: how a long transcript is made small again, cheapest first.

1. prune      old, bulky tool results become a one-line stub saying what was there and how to get it
              again (no model call);
2. summarise  everything before the kept tail becomes one structured summary (one model request: see
              agentcli.core.compactor, which drives these steps and records the result);
3. truncate   only when the result still does not fit: bulky results inside the tail are cut, then the
              oldest tail turns dropped.

What always survives: the system prompt (memory files included: it is sent with every request), the todo
list, the user's first and latest messages verbatim, nested memory files picked up on the way, and the
recent tail (chosen by a token budget, not a message count). Sizes here are the cheap estimate (about four
characters a token): the choices only need proportions, and pruning a 150k-token conversation stays in
milliseconds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from agentcli.llm.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

PRUNED_MARK = "[pruned by compaction:"
SUMMARY_MARK = "<compaction-summary>"
FIRST_OPEN, FIRST_CLOSE = "<first-user-message>", "</first-user-message>"
PRUNE_MIN_CHARS = 1_200  # smaller results cost less than their stub is worth
TRANSCRIPT_RESULT_CHARS = 2_000  # how much of each tool result the summariser reads
TAIL_RESULT_CHARS = 4_000  # truncate: a tail result cut to its head and end

SUMMARY_SYSTEM = """You compact a coding agent's conversation so the work can continue in a fresh context.
Write a structured summary in markdown with exactly these sections:
## Task — what the user asked for, quoting their own words where they matter;
## Decisions — choices made and why, constraints the user stated;
## Files — every file read, created or changed, and why;
## Done — what is finished and how it was checked;
## Next — the remaining steps, in order;
## Open errors — failures not yet resolved (commands, messages), or "none".
Be specific (paths, names, commands, error text). Do not invent anything. Do not call tools."""


def block_chars(b: ContentBlock) -> int:
    match b:
        case TextBlock(text):
            return len(text)
        case ThinkingBlock(thinking, signature, _):
            return len(thinking) + len(signature or "")
        case RedactedThinkingBlock(data, _):
            return len(data)
        case ToolUseBlock(_, name, args, raw):
            return len(name) + (len(raw) if raw is not None else _json_chars(args))
        case ToolResultBlock(_, content, _):
            return len(content) + 16
        case ImageBlock():
            return 6_400  # ~1,600 tokens: what providers charge for a mid-size image
    raise TypeError(f"not a content block: {b!r}")


def _json_chars(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def message_tokens(m: Message) -> int:
    """The cheap estimate of one message's size in tokens (the Agent passes its cached tiktoken counts)."""
    return (sum(block_chars(b) for b in m.content) + 12) // 4


Size = Callable[[Message], int]


def messages_tokens(messages: Iterable[Message], size: Size = message_tokens) -> int:
    return sum(size(m) for m in messages)


# ---- phase 1: prune ----------------------------------------------------------------------------------------


def prune(messages: Sequence[Message], protect_tokens: int, size: Size = message_tokens
          ) -> tuple[list[Message], int]:
    """Stub every bulky tool result older than the last `protect_tokens` of the conversation (the latest
    exchange is never touched: the model is working on it). Returns the new list (unchanged messages are the
    same objects) and how many results were stubbed."""
    calls = {b.id: b for m in messages if m.role == "assistant" for b in m.content if isinstance(b, ToolUseBlock)}
    out = list(messages)
    latest = next((i for i in range(len(out) - 1, -1, -1) if out[i].role == "assistant"), len(out))
    seen = 0
    stubbed = 0
    for i in range(len(out) - 1, -1, -1):
        m = out[i]
        seen += size(m)
        if seen <= protect_tokens or i >= latest or m.role != "user":
            continue
        if not any(isinstance(b, ToolResultBlock) and _prunable(b) for b in m.content):
            continue
        blocks: list[ContentBlock] = []
        for b in m.content:
            if isinstance(b, ToolResultBlock) and _prunable(b):
                blocks.append(ToolResultBlock(b.tool_use_id, stub(calls.get(b.tool_use_id), b), b.is_error))
                stubbed += 1
            else:
                blocks.append(b)
        out[i] = Message("user", tuple(blocks))
    return out, stubbed


def _prunable(b: ToolResultBlock) -> bool:
    return len(b.content) >= PRUNE_MIN_CHARS and not b.content.startswith(PRUNED_MARK)


def stub(call: ToolUseBlock | None, result: ToolResultBlock) -> str:
    """The one line that replaces a pruned result: what it was and how to get it again."""
    lines = result.content.count("\n") + 1
    size = f"{len(result.content):,} characters, {lines:,} lines"
    if call is None:
        return f"{PRUNED_MARK} a tool result of {size} was removed to save context]"
    args = json.dumps(call.input, ensure_ascii=False, separators=(", ", ": "))
    if len(args) > 200:
        args = args[:200] + "…"
    return (f"{PRUNED_MARK} the {call.name} result for {args} ({size}) was removed to save context; "
            f"call {call.name} again if you need it]")


# ---- the kept tail -----------------------------------------------------------------------------------------


def is_start(m: Message) -> bool:
    """Can a kept tail begin here? Not at tool results: their calls would be gone."""
    return m.role == "assistant" or not any(isinstance(b, ToolResultBlock) for b in m.content)


def tail_start(messages: Sequence[Message], budget_tokens: int, size: Size = message_tokens) -> int:
    """Where the kept tail begins: the earliest valid start whose tail fits `budget_tokens`; at least the
    last valid start (the latest exchange is always kept, cut later if it must be)."""
    last_valid = next((i for i in range(len(messages) - 1, -1, -1) if is_start(messages[i])), len(messages))
    best = last_valid
    total = 0
    for i in range(len(messages) - 1, -1, -1):
        total += size(messages[i])
        if total > budget_tokens:
            break
        if is_start(messages[i]):
            best = min(best, i)
    return best


# ---- phase 2: what the summariser reads, and what replaces the history -------------------------------------


def transcript(messages: Sequence[Message], budget_tokens: int) -> tuple[str, int]:
    """The conversation as plain text for the summariser, tool results cut short. When it is still over
    `budget_tokens`, the oldest parts go first (phase 3 for the summariser's own input); returns the text
    and how many messages were left out."""
    parts = [_render(m) for m in messages]
    dropped = 0
    total = sum(len(p) for p in parts) // 4
    while total > budget_tokens and len(parts) - dropped > 1:
        total -= len(parts[dropped]) // 4
        dropped += 1
    kept = parts[dropped:]
    if dropped:
        kept.insert(0, f"[{dropped} older messages left out: they did not fit]")
    return "\n\n".join(kept), dropped


def _render(m: Message) -> str:
    out: list[str] = []
    for b in m.content:
        match b:
            case TextBlock(text):
                out.append(f"[{m.role}] {text}")
            case ToolUseBlock(_, name, args, raw):
                out.append(f"[assistant calls {name}] {raw if raw is not None else json.dumps(args)[:1000]}")
            case ToolResultBlock(_, content, is_error):
                cut = content if len(content) <= TRANSCRIPT_RESULT_CHARS else (
                    content[:TRANSCRIPT_RESULT_CHARS] + f"… [{len(content) - TRANSCRIPT_RESULT_CHARS:,} more chars]")
                out.append(f"[tool {'error' if is_error else 'result'}] {cut}")
            case ImageBlock():
                out.append(f"[{m.role} attached an image]")
            case ThinkingBlock() | RedactedThinkingBlock():
                pass
    return "\n".join(out)


def summary_request_text(history: str, focus: str | None) -> str:
    text = f"Here is the conversation to summarise:\n\n<conversation>\n{history}\n</conversation>"
    if focus:
        text += f"\n\nThe user asked this summary to focus on: {focus}"
    return text + "\n\nWrite the summary now."


def prompts(messages: Sequence[Message]) -> list[str]:
    """The user's own messages (typed text, not tool results), oldest first."""
    return [m.text for m in messages if m.role == "user" and m.text and not m.text.startswith(SUMMARY_MARK)]


def first_prompt(messages: Sequence[Message]) -> str | None:
    """The session's first user message: from an earlier compaction's summary when there was one."""
    if messages and messages[0].role == "user" and messages[0].text.startswith(SUMMARY_MARK):
        text = messages[0].text
        start, end = text.find(FIRST_OPEN), text.find(FIRST_CLOSE)
        if 0 <= start < end:
            return text[start + len(FIRST_OPEN) : end].strip("\n")
    found = prompts(messages)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class Carried:
    """What a summary message carries besides the summary itself."""

    first: str | None
    latest: str | None
    todos: str = ""
    memory: tuple[str, ...] = ()


def summary_message(summary: str, carried: Carried) -> Message:
    """The user message that stands for everything before the kept tail."""
    parts = [SUMMARY_MARK,
             "This session was compacted to fit the context window. The summary below stands for the earlier "
             "conversation; continue the work from it without asking the user to repeat anything.",
             f"## Summary\n{summary.strip() or '(no summary: the earlier turns were dropped)'}"]
    if carried.first:
        parts.append(f"## The user's first message, verbatim\n{FIRST_OPEN}\n{carried.first}\n{FIRST_CLOSE}")
    if carried.latest and carried.latest != carried.first:
        parts.append(f"## The user's latest message, verbatim\n{carried.latest}")
    if carried.todos:
        parts.append(f"## Current todo list\n{carried.todos}")
    parts.extend(carried.memory)
    parts.append("</compaction-summary>")
    return Message.user("\n\n".join(parts))


# ---- phase 3: truncate ---------------------------------------------------------------------------------------


def truncate(head: Message, tail: Sequence[Message], budget_tokens: int, size: Size = message_tokens
             ) -> tuple[list[Message], int]:
    """Fit `head` + `tail` into `budget_tokens`: cut bulky results in the tail to their start and end, then
    drop the oldest tail turns (at valid starts). Returns the messages and how many were dropped."""
    cut = [_cut_results(m) for m in tail]
    dropped = 0
    while cut and size(head) + messages_tokens(cut, size) > budget_tokens:
        nxt = next((i for i in range(1, len(cut)) if is_start(cut[i])), len(cut))
        if nxt == len(cut) and len(cut) <= 2:
            break  # the latest exchange stays: without it the model cannot continue
        dropped += nxt
        cut = cut[nxt:]
    return [head, *cut], dropped


def _cut_results(m: Message) -> Message:
    if m.role != "user" or not any(isinstance(b, ToolResultBlock) and len(b.content) > TAIL_RESULT_CHARS
                                   for b in m.content):
        return m
    half = TAIL_RESULT_CHARS // 2
    blocks: list[ContentBlock] = []
    for b in m.content:
        if isinstance(b, ToolResultBlock) and len(b.content) > TAIL_RESULT_CHARS:
            gone = len(b.content) - 2 * half
            b = ToolResultBlock(b.tool_use_id, f"{b.content[:half]}\n[… {gone:,} characters cut by compaction …]\n"
                                               f"{b.content[-half:]}", b.is_error)
        blocks.append(b)
    return Message("user", tuple(blocks))
