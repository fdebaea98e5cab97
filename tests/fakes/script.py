"""What the fake LLM says: provider-neutral replies, rendered per wire format by the renderers.

    Reply(text="hi")                                   one text answer
    Reply(thinking="hmm", tool_calls=[ToolCall("Read", {"file_path": "a.py"})])
    Reply(fault=Fault.rate_limit(retry_after=0))       one failed request (the next Reply answers the retry)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

FaultKind = Literal[
    "http",  # an HTTP error status with the provider's error body (429, 500, 529, 401 …)
    "drop_before",  # close the connection before any response byte
    "drop_mid",  # send headers and `after_events` events, then close without finishing
    "malformed",  # send `after_events` events, then one whose data is not JSON, then stop
    "slow_first_byte",  # wait `delay_s` before the response headers, then answer normally
    "stream_error",  # send `after_events` events, then the provider's in-stream error event
]


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    status: int = 500
    message: str = "fake fault"
    retry_after: float | None = None
    retry_after_ms: int | None = None
    after_events: int = 2
    delay_s: float = 0.0
    error_type: str | None = None

    @staticmethod
    def rate_limit(retry_after: float | None = 0.0, retry_after_ms: int | None = None) -> Fault:
        return Fault("http", 429, "Rate limited", retry_after, retry_after_ms)

    @staticmethod
    def server_error() -> Fault:
        return Fault("http", 500, "Internal server error")

    @staticmethod
    def overloaded() -> Fault:
        return Fault("http", 529, "Overloaded")

    @staticmethod
    def unauthorized() -> Fault:
        return Fault("http", 401, "invalid x-api-key")

    @staticmethod
    def context_overflow() -> Fault:
        return Fault("http", 400, "prompt is too long: 250000 tokens > 200000 maximum")

    @staticmethod
    def too_long(wire: str, tokens: int = 250_000, window: int = 200_000) -> Fault:
        """The "prompt is too long" answer each provider really sends (wire: anthropic | openai | responses |
        gemini | llamacpp), as an HTTP 400 with that provider's error body."""
        messages = {
            "anthropic": (f"prompt is too long: {tokens} tokens > {window} maximum", "invalid_request_error"),
            "openai": (f"This model's maximum context length is {window} tokens. However, your messages resulted "
                       f"in {tokens} tokens. Please reduce the length of the messages.", "invalid_request_error"),
            "responses": ("Your input exceeds the context window of this model. Please adjust your input and try "
                          "again.", "invalid_request_error"),
            "gemini": (f"The input token count ({tokens}) exceeds the maximum number of tokens allowed ({window}).",
                       "INVALID_ARGUMENT"),
            "llamacpp": ("the request exceeds the available context size, try increasing it",
                         "exceed_context_size_error"),
        }
        message, etype = messages[wire]
        return Fault("http", 400, message, error_type=etype)


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    raw_args: str | None = None  # sent instead of json(args), e.g. to test invalid JSON


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 10
    output_tokens: int | None = None  # None: one per streamed piece
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True)
class Reply:
    """One model response. `chunk_size` characters per text/thinking delta, `args_chunk_size` per tool
    argument delta. `reasoning_field` is where OpenAI-compatible servers put thinking text."""

    text: str = ""
    thinking: str = ""
    signature: str = "sig-fake"
    tool_calls: tuple[ToolCall, ...] | list[ToolCall] = ()
    usage: Usage = field(default_factory=Usage)
    chunk_size: int = 8
    args_chunk_size: int = 5
    stop_reason: str | None = None  # None: tool_use when there are tool calls, else end_turn
    model: str | None = None  # None: echo the requested model
    fault: Fault | None = None
    reasoning_field: str = "reasoning_content"
    pieces: tuple[str, ...] | None = None  # explicit text deltas (overrides text/chunk_size)
    burst: bool = False  # write the whole body at once (benchmarks) instead of one write per event
    when: str | None = None  # only for a request whose body contains this text (concurrent subagents)
    # The provider's own web search ran before the text: its query and the (title, url) sources it found.
    search_query: str = ""
    search_sources: tuple[tuple[str, str], ...] | list[tuple[str, str]] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Reply:
        d = dict(d)
        d["tool_calls"] = tuple(ToolCall(**t) for t in d.get("tool_calls", ()))
        if d.get("usage") is not None:
            d["usage"] = Usage(**d["usage"])
        if d.get("fault") is not None:
            d["fault"] = Fault(**d["fault"])
        if d.get("pieces") is not None:
            d["pieces"] = tuple(d["pieces"])
        return Reply(**d)

    def text_pieces(self) -> list[str]:
        if self.pieces is not None:
            return list(self.pieces)
        return split(self.text, self.chunk_size)

    def final_stop_reason(self) -> str:
        return self.stop_reason or ("tool_use" if self.tool_calls else "end_turn")


def split(s: str, n: int) -> list[str]:
    n = max(1, n)
    return [s[i : i + n] for i in range(0, len(s), n)]
