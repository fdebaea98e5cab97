"""The events one model response streams as: what a provider adapter yields for one request. Pure data.
The agent loop merges them into a finished message (agentcli.core.assemble) and passes them on to front ends
as part of `AgentEvent` (agentcli.core.events)."""

from __future__ import annotations

from typing import Literal, TypeAlias

from agentcli.llm.messages import Usage
from agentcli.record import record

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "error", "cancelled"]


@record
class TextDelta:
    """A piece of assistant text."""

    text: str


@record
class ThinkingDelta:
    """A piece of reasoning text (Anthropic thinking, OpenAI reasoning summary, Gemini thought, `<think>`)."""

    text: str


@record
class ThinkingSignature:
    """The signature that closes a thinking block (Anthropic); must be echoed back on the next request."""

    signature: str


@record
class RedactedThinking:
    data: str


@record
class ToolCallStart:
    """A tool call begins. `index` identifies it among parallel calls in this response."""

    index: int
    id: str
    name: str


@record
class ToolCallDelta:
    """A piece of a tool call's JSON argument text."""

    index: int
    arguments: str


@record
class ToolCallEnd:
    index: int


@record
class UsageReport:
    """Usage for the current request so far. Adapters send the cumulative figure; the last one wins."""

    usage: Usage


@record
class ApiRetry:
    """A request failed in a retryable way and will be retried after `delay_s`. `discarded`: the stream broke
    after some output (text or a tool call); that output is void and the retried response starts over."""

    attempt: int
    max_retries: int
    delay_s: float
    error_code: str
    message: str
    status: int | None = None
    discarded: bool = False


@record
class WebSearchResults:
    """The provider searched the web itself (a server-side tool: Anthropic web_search, OpenAI Responses
    web_search, Gemini google_search grounding): its queries and the sources it found or cited."""

    provider: str
    queries: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]  # (title, url)


@record
class MessageStop:
    """The model finished this response. `model` is the model the provider says answered."""

    stop_reason: StopReason
    model: str | None = None


@record
class Notice:
    """Something the user should know that is not an error: a provider's warning (Ollama's context size), a
    rule that could not be saved, a skipped checkpoint, a mode change. Adapters may yield it mid-stream; it is
    not output (a stream that broke after one is still retried). `code` names a notice scripts can act on
    (`tools_dropped`: a local server's chat template left the tools out of the prompt)."""

    level: Literal["info", "warning"]
    text: str
    code: str | None = None


StreamEvent: TypeAlias = (
    TextDelta
    | ThinkingDelta
    | ThinkingSignature
    | RedactedThinking
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | UsageReport
    | ApiRetry
    | WebSearchResults
    | MessageStop
    | Notice
)
