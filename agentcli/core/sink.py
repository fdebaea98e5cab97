"""Where the loop writes the transcript as it happens. agentcli.session implements it; `NullSink` keeps nothing
(`--no-session-persistence`, tests of the loop alone)."""

from __future__ import annotations

from typing import Any, Protocol

from agentcli.llm.messages import Message


class SessionSink(Protocol):
    """Append-only: every call writes one whole record. Ids are returned so later records can point at them."""

    session_id: str

    def message(self, message: Message, **meta: Any) -> str:
        """Append a transcript message (user, assistant or tool results); return its record id."""
        ...

    def record(self, kind: str, data: dict[str, Any]) -> str:
        """Append a non-message record: permission, model_switch, notice, result …; return its id."""
        ...

    async def checkpoint(self, tool_use_id: str, tool_name: str) -> None:
        """Called before any tool call that may change files (Bash included), so the tree can be rewound."""
        ...

    def take_problems(self) -> list[str]:
        """What the person should be told and has not been yet (a snapshot that failed); the loop turns each
        into a `Notice` after a checkpoint and before the run's result."""
        ...

    def end_turn(self) -> None:
        """A turn is complete: make everything written so far durable (fsync). Never waits for git."""
        ...

    async def settle(self) -> None:
        """Wait, without blocking the event loop, for what the last turn started in the background (its file
        checkpoint): a run's result follows the snapshot of the tree its tools left."""
        ...

    def close(self) -> None:
        """Flush, release the session lock and close the file. Safe to call twice."""
        ...


class NullSink:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._n = 0

    def message(self, message: Message, **meta: Any) -> str:
        return self._next()

    def record(self, kind: str, data: dict[str, Any]) -> str:
        return self._next()

    async def checkpoint(self, tool_use_id: str, tool_name: str) -> None:
        return None

    def take_problems(self) -> list[str]:
        return []

    def end_turn(self) -> None:
        return None

    async def settle(self) -> None:
        return None

    def close(self) -> None:
        return None

    def _next(self) -> str:
        self._n += 1
        return f"r{self._n}"
