"""Maps normalized stream deltas back to Anthropic-style raw stream events for `--include-partial-messages`,
whatever provider produced them (block indexes are ours, counted per message)."""

from __future__ import annotations

from typing import Any, assert_never

from agentcli.core.events import (
    ApiRetry,
    MessageStop,
    Notice,
    RedactedThinking,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    TurnStarted,
    UsageReport,
    WebSearchResults,
)

Raw = dict[str, Any]


class PartialMapper:
    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._next = 0
        self._open: tuple[str, int] | None = None  # ("text"|"thinking", block index)
        self._tools: dict[int, int] = {}  # tool-call index → block index
        self._output_tokens = 0

    def _start(self, block: Raw) -> tuple[list[Raw], int]:
        out = self._close()
        idx = self._next
        self._next += 1
        out.append({"type": "content_block_start", "index": idx, "content_block": block})
        return out, idx

    def _close(self) -> list[Raw]:
        if self._open is None:
            return []
        idx = self._open[1]
        self._open = None
        return [{"type": "content_block_stop", "index": idx}]

    def _delta(self, kind: str, delta: Raw, block: Raw) -> list[Raw]:
        out: list[Raw] = []
        if self._open is None or self._open[0] != kind:
            out, idx = self._start(block)
            self._open = (kind, idx)
        out.append({"type": "content_block_delta", "index": self._open[1], "delta": delta})
        return out

    def map(self, ev: TurnStarted | StreamEvent) -> list[Raw]:
        match ev:
            case TurnStarted():
                self._reset()
                return [{"type": "message_start", "message": {"type": "message", "role": "assistant",
                                                               "content": [], "stop_reason": None}}]
            case TextDelta(text):
                return self._delta("text", {"type": "text_delta", "text": text}, {"type": "text", "text": ""})
            case ThinkingDelta(text):
                return self._delta("thinking", {"type": "thinking_delta", "thinking": text},
                                   {"type": "thinking", "thinking": ""})
            case ThinkingSignature(sig):
                return self._delta("thinking", {"type": "signature_delta", "signature": sig},
                                   {"type": "thinking", "thinking": ""})
            case RedactedThinking(data):
                out, idx = self._start({"type": "redacted_thinking", "data": data})
                return [*out, {"type": "content_block_stop", "index": idx}]
            case ToolCallStart(index, id_, name):
                out, idx = self._start({"type": "tool_use", "id": id_, "name": name, "input": {}})
                self._tools[index] = idx
                return out
            case ToolCallDelta(index, args):
                if index not in self._tools:
                    return []
                return [{"type": "content_block_delta", "index": self._tools[index],
                         "delta": {"type": "input_json_delta", "partial_json": args}}]
            case ToolCallEnd(index):
                if index not in self._tools:
                    return []
                return [{"type": "content_block_stop", "index": self._tools.pop(index)}]
            case UsageReport(usage):
                self._output_tokens = usage.output_tokens
                return []
            case MessageStop(reason, _):
                out = self._close()
                out.extend({"type": "content_block_stop", "index": i} for i in self._tools.values())
                self._tools.clear()
                out.append({"type": "message_delta", "delta": {"stop_reason": reason},
                            "usage": {"output_tokens": self._output_tokens}})
                out.append({"type": "message_stop"})
                return out
            case Notice() | WebSearchResults():
                return []  # a system line of its own in stream-json
            case ApiRetry(discarded=discarded):
                if not discarded:
                    return []  # stream-json reports retries as system lines of their own
                # The reply broke and starts over: close what is open, then begin a new message.
                out = self._close()
                out.extend({"type": "content_block_stop", "index": i} for i in self._tools.values())
                out.append({"type": "message_stop"})
                return [*out, *self.map(TurnStarted(0))]
            case _:
                assert_never(ev)
