"""What a tool is: name, description, JSON schema, annotations and `async run(args, ctx)`.

Tools never import providers, session/ or front ends. What they need from outside arrives in `ToolContext`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.llm.messages import ContentBlock
from agentcli.redact import Redactor

if TYPE_CHECKING:
    from agentcli.sandbox.core import Sandbox


@dataclass(slots=True)
class ToolContext:
    """Per-session state handed to every tool call.

    `project_root` bounds the file tools (with `add_dirs`); `shell_cwd` is the Bash working directory, kept
    between calls; `redact` removes secrets from text before it leaves the tool; `sandbox` confines every
    process a tool starts (None: unconfined, as in unit tests of the tools themselves).
    """

    project_root: Path
    add_dirs: tuple[Path, ...] = ()
    shell_cwd: Path | None = None
    tool_timeout_s: float = 120.0
    max_output_chars: int = 30_000
    env: dict[str, str] | None = field(default=None, repr=False)  # the environment and the secrets stay out of
    secrets: tuple[str, ...] = field(default=(), repr=False)  # any repr (tracebacks, logs)
    state: dict[str, Any] = field(default_factory=dict)
    sandbox: Sandbox | None = None
    # What finished in the background for the model to hear at its next turn (a background subagent's answer):
    # objects with `text` (and `result`, the subagent's RunResult). The loop drains it.
    inbox: list[Any] = field(default_factory=list)
    # The session's subagent runner (agentcli.agents.runner), for the Task tools; None when subagents are off.
    subagents: Any = None
    _redactor: Redactor | None = field(default=None, repr=False, compare=False)

    def redact(self, text: str, *, shapes: bool = False) -> str:
        """`text` without the session's secrets. Key-shaped strings stay unless `shapes` (a project's own test
        fixtures are legitimate tool output); the session file's redactor catches those, and text that leaves
        the machine (telemetry) asks for `shapes`."""
        if self._redactor is None or self._redactor.given != self.secrets:
            self._redactor = Redactor(self.secrets, patterns=False)
        return self._redactor.text(text, patterns=shapes)


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool's result for two audiences: `content` for the model, `display` (optional) for the person."""

    content: str
    is_error: bool = False
    display: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def error(message: str) -> ToolOutput:
        return ToolOutput(message, is_error=True)


class Tool(Protocol):
    """A tool. `read_only` tools may run concurrently and without asking; `destructive` ones always ask
    outside bypassPermissions; `edits_files` marks tools acceptEdits allows."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    edits_files: bool

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput: ...


class ToolSource(Protocol):
    """Tools that come and go during a session (MCP servers): asked by the registry every turn."""

    async def refresh(self) -> None:
        """Called before each model request; may wait a bounded time for tools still arriving."""

    def tools(self) -> list[Tool]: ...

    def lookup(self, name: str) -> Tool | str | None:
        """A tool not offered this turn by name (e.g. deferred), or why it cannot run, or None if unknown."""

    def notices(self) -> list[tuple[str, str]]:
        """(level, text) lines for the user that appeared since the last call."""

    def servers(self) -> list[tuple[str, str]]:
        """(name, status) of each server behind this source."""

    async def attachments(self, text: str) -> list[ContentBlock]:
        """Blocks a user prompt's mentions attach (MCP `@server:uri` resources)."""

    async def expand(self, text: str) -> str | None:
        """A user prompt that is one of this source's commands (`/mcp__server__prompt args`) as what it asks;
        None for any other prompt. An AgentCliError says why the command cannot run."""

    async def aclose(self) -> None: ...
