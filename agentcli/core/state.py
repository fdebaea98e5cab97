"""The session's state with one owner: the permission mode (agentcli.core.modes) and the todo list.

The agent owns one `SessionState` for its whole life. The policy it uses, the sandbox (plan mode runs commands
read-only) and every front end read the mode from that object, so a preset switch, which brings a new policy,
can never leave a reader holding a mode nobody updates any more.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentcli.core.events import TodoItem
from agentcli.core.modes import PermissionMode


@dataclass(slots=True)
class SessionState:
    """What a session is set to now. Written only through the agent's command API (`Agent.set_mode` …) and by
    its loop (the TodoWrite list, as the last call left it)."""

    mode: PermissionMode = "default"
    todos: tuple[TodoItem, ...] = ()
