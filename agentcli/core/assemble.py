"""Merges a provider's stream of deltas into one finished assistant message — once, here, not in each adapter."""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any, assert_never

from agentcli.core.events import (
    ApiRetry,
    MessageStop,
    Notice,
    RedactedThinking,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
    WebSearchResults,
)
from agentcli.llm.messages import (
    ContentBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from agentcli.record import record


@record(frozen=False)
class _Call:
    id: str
    name: str
    parts: list[str] = field(default_factory=list)
    done: bool = False


@record(frozen=False)
class MessageBuilder:
    """Feed it every StreamEvent of one response; `message()` gives the merged assistant message.

    Blocks keep the order they began in. Text and thinking pieces are joined; a tool call's argument text is
    parsed as JSON when the message is built (invalid JSON is kept in `raw_arguments` for the loop to report).
    """

    provider: str | None = None
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason | None = None
    model: str | None = None
    _blocks: list[Any] = field(default_factory=list)
    _calls: dict[int, _Call] = field(default_factory=dict)
    output_seen: bool = False

    def feed(self, ev: StreamEvent) -> None:
        match ev:
            case TextDelta(text):
                self.output_seen = True
                self._append_piece("text", text)
            case ThinkingDelta(text):
                self.output_seen = True
                self._append_piece("thinking", text)
            case ThinkingSignature(sig):
                last = self._blocks[-1] if self._blocks else None
                if isinstance(last, list) and last[0] == "thinking":
                    last[2] = sig
                else:
                    self._blocks.append(["thinking", [], sig])
            case RedactedThinking(data):
                self._blocks.append(RedactedThinkingBlock(data, self.provider))
            case ToolCallStart(index, id_, name):
                self.output_seen = True
                call = _Call(id_, name)
                self._calls[index] = call
                self._blocks.append(call)
            case ToolCallDelta(index, args):
                if index in self._calls:
                    self._calls[index].parts.append(args)
            case ToolCallEnd(index):
                if index in self._calls:
                    self._calls[index].done = True
            case UsageReport(usage):
                self.usage = usage
            case MessageStop(reason, model):
                self.stop_reason = reason
                if model:
                    self.model = model
            case Notice() | WebSearchResults():
                pass  # for the person, not part of the message
            case ApiRetry(discarded=discarded):
                if discarded:  # the stream broke mid-reply and starts over: forget what it sent
                    self.usage, self.stop_reason, self.model, self.output_seen = Usage(), None, None, False
                    self._blocks.clear()
                    self._calls.clear()
            case _:
                assert_never(ev)

    def _append_piece(self, kind: str, text: str) -> None:
        last = self._blocks[-1] if self._blocks else None
        if isinstance(last, list) and last[0] == kind and (kind == "text" or last[2] is None):
            last[1].append(text)
        else:
            self._blocks.append([kind, [text], None])

    def message(self, *, complete_calls_only: bool = False) -> Message:
        """The merged message. With `complete_calls_only` (a broken or cancelled stream), tool calls that never
        ended are dropped, so the transcript holds no call without a chance of a result."""
        content: list[ContentBlock] = []
        for b in self._blocks:
            if isinstance(b, list):
                kind, parts, sig = b
                text = "".join(parts)
                if kind == "text":
                    if text:
                        content.append(TextBlock(text))
                elif text or sig:
                    content.append(ThinkingBlock(text, sig, self.provider))
            elif isinstance(b, _Call):
                if complete_calls_only and not b.done:
                    continue
                content.append(_tool_use(b))
            else:
                content.append(b)
        return Message("assistant", tuple(content))


def _tool_use(call: _Call) -> ToolUseBlock:
    raw = "".join(call.parts)
    if not raw.strip():
        return ToolUseBlock(call.id, call.name, {})
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return ToolUseBlock(call.id, call.name, {}, raw_arguments=raw)
    if not isinstance(value, dict):
        return ToolUseBlock(call.id, call.name, {}, raw_arguments=raw)
    return ToolUseBlock(call.id, call.name, value)
