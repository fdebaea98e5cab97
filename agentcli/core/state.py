"""The session's state with one owner: the permission mode (agentcli.modes), the preset and the todo list.

The agent owns one `SessionState` for its whole life. The policy it uses, the sandbox (plan mode runs commands
read-only) and every front end read the mode from that object, so a preset switch, which brings a new policy,
can never leave a reader holding a mode nobody updates any more.
"""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from agentcli.core.events import SessionChanged, TodoItem
from agentcli.modes import PermissionMode
from agentcli.record import record


@record(frozen=False)
class SessionState:
    """What a session is set to now. Written only through the agent's command API (`Agent.set_mode` …) and by
    its loop (the TodoWrite list, as the last call left it)."""

    mode: PermissionMode = "default"
    preset: str | None = None  # the preset the session was built with or switched to (None: the default tools)
    todos: tuple[TodoItem, ...] = ()
    _untold: list[SessionChanged] = field(default_factory=list, repr=False)

    def changed(self, what: Literal["mode", "model", "preset"], model: str) -> None:
        """A change is an event on the stream: of the run making it, else first in the next run (`take_changes`)."""
        self._untold.append(SessionChanged(what, self.mode, model, self.preset))

    def take_changes(self) -> list[SessionChanged]:
        """The changes not yet on the stream, oldest first; each is taken once."""
        untold, self._untold = self._untold, []
        return untold
