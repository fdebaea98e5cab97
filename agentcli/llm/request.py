"""One normalized model request, and the `Provider` protocol that streams its answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import field
from typing import Any, Literal, Protocol

from agentcli.llm.messages import Message, ToolSpec
from agentcli.llm.stream import StreamEvent
from agentcli.record import record

Effort = Literal["low", "medium", "high"]


@record
class ModelRequest:
    """Everything a provider needs for one call. `model` is the provider's own model name (no prefix)."""

    model: str
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 8192
    temperature: float | None = None
    effort: Effort | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Provider(Protocol):
    """A model provider. `stream` yields normalized events and ends with `MessageStop`, or raises a
    `ProviderError` (after yielding whatever partial output arrived)."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...
