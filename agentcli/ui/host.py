"""What slash commands and actions (agentcli.ui.slash, .actions, .rewind) may use of the interactive session:
this protocol, and nothing else. `Repl` implements it; the commands never import the REPL or touch its
internals, so the REPL can change behind it and a command can be tested against a small stand-in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from rich.console import Console

    from agentcli.assembly.runtime import Built
    from agentcli.core.events import AgentEvent
    from agentcli.core.loop import Agent
    from agentcli.llm.messages import Message
    from agentcli.settings.config import Settings
    from agentcli.ui.render import Renderer
    from agentcli.ui.status import Status


class ReplHost(Protocol):
    """The session as a command sees it: where it is, its agent (commands change it only through the agent's
    command API), the screen, and a few session-level operations."""

    root: Path
    cwd: Path
    settings: Settings
    agent: Agent | None
    built: Built | None
    status: Status
    context: list[str]  # text (e.g. `!cmd` output) that goes to the model with the next prompt
    exit_requested: bool

    @property
    def console(self) -> Console: ...

    @property
    def renderer(self) -> Renderer: ...

    @property
    def mode(self) -> str: ...

    def set_mode(self, mode: str) -> None: ...

    @property
    def model(self) -> str: ...

    def choose_model(self, model: str) -> None:
        """The model the next agent is built with (a /model before the agent exists), for the status line."""
        ...

    def error(self, err: BaseException) -> None: ...

    def refresh_status(self) -> None: ...

    def cancel_build(self) -> None:
        """Forget an agent being built in the background (its settings changed); the next prompt builds anew."""
        ...

    def put_back(self, text: str) -> None:
        """Put `text` in the input line, as if the person had typed it (a rewound prompt)."""
        ...

    async def send(self, prompt: str | Message) -> None: ...

    async def ensure_agent(self) -> Agent | None: ...

    async def command(self, events: AsyncIterator[AgentEvent], phase: str = "Working") -> None:
        """Render the events of an agent command (`/compact`) like a turn: spinner, Esc cancels."""
        ...

    async def resume(self, ref: str) -> bool:
        """Continue stored session `ref` as `agentcli --resume` does: checked now, drawn and built once the prompt
        is back up; False (reported) when it cannot be resumed."""
        ...

    async def rebuild(self, *, resume: str | None, fork: bool, name: str | None = None, clear: bool = False) -> bool:
        """A new agent for a new, resumed or forked session; False (reported) when it could not be built."""
        ...
