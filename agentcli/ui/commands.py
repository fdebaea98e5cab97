"""The slash-command registry: `@command(name, description, usage)` registers a handler, which gets the session
as `ReplHost` (agentcli.ui.host) and the argument text. The modules holding commands (agentcli.ui.slash,
agentcli.ui.mcp_commands) register into it; slash dispatches from it."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.ui.host import ReplHost

Handler = Callable[["ReplHost", str], Awaitable[None]]


@dataclasses.dataclass(frozen=True, slots=True)
class Command:
    name: str
    description: str
    handler: Handler
    usage: str = ""


COMMANDS: dict[str, Command] = {}
ALIASES = {"quit": "exit", "q": "exit", "?": "help", "new": "clear", "reset": "clear"}


def command(name: str, description: str, usage: str = "") -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = Command(name, description, fn, usage)
        return fn

    return register
