"""A final answer a run must give through a tool before it may end (structured output: agentcli.structured)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from agentcli.llm.messages import ToolUseBlock


class FinalOutput(Protocol):
    """Asked by the agent loop after each reply. `seen` and `missing` raise an AgentCliError once the model has
    used up its attempts (the run then ends with that error)."""

    value: Any

    def start(self) -> None:
        """A run begins: nothing given yet, every attempt available."""
        ...

    def seen(self, calls: Sequence[ToolUseBlock], /) -> bool:
        """After a turn's tool calls ran: True when the answer was given (the run ends)."""
        ...

    def missing(self) -> str | None:
        """The model ended its turn: None when the answer was given, else a reminder to continue with."""
        ...
