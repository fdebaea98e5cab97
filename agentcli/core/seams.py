"""What the loop's helpers (agentcli.core.interrupts, .runhooks, .compactor, .model_request) see of the agent: a
narrow Protocol each, below them all, so they take the agent without importing the loop that imports them.
`agentcli.core.loop.Agent` satisfies every one (mypy checks it where the loop passes itself)."""

from __future__ import annotations

from typing import Any, Protocol

from agentcli.core.context import ContextMeter
from agentcli.core.events import TodoItem
from agentcli.core.hooks import Hooks
from agentcli.core.options import AgentOptions
from agentcli.core.permissions import Policy
from agentcli.core.runstate import RunState
from agentcli.core.sink import SessionSink
from agentcli.llm.messages import Message, Usage
from agentcli.llm.request import Provider


class Transcript(Protocol):
    """The conversation: read it, and add a message (recorded in the session as it is added)."""

    messages: list[Message]
    options: AgentOptions

    def append(self, message: Message, **meta: Any) -> None: ...


class HookSite(Protocol):
    """Where hooks fire: the hook runner, the session they record to, and the payload fields every hook gets."""

    hooks: Hooks | None
    sink: SessionSink
    options: AgentOptions

    def hook_payload(self, **fields: Any) -> dict[str, Any]: ...


class Compacting(Transcript, HookSite, Protocol):
    """What a compaction reads (sizes, limits, the todo list, the rules) and changes (the history)."""

    policy: Policy

    @property
    def todos(self) -> tuple[TodoItem, ...]: ...

    def context_tokens(self) -> int: ...

    def compact_limit(self) -> int | None: ...

    def window(self) -> int | None: ...

    def request_tokens(self, messages: list[Message]) -> int: ...

    def message_size(self, m: Message) -> int: ...

    def nested_memory_texts(self) -> tuple[str, ...]: ...

    def compaction_provider(self) -> tuple[Provider, str]: ...

    def count_usage(self, model: str, usage: Usage) -> None: ...

    def replace_history(self, messages: list[Message], tokens: int) -> None: ...

    def set_session_start(self, source: str) -> None: ...


class Requesting(Compacting, Protocol):
    """What one model request uses: the provider, the context meter, and the run's accounting."""

    provider: Provider
    meter: ContextMeter

    def account(self, st: RunState, usage: Usage) -> None: ...
