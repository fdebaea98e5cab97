"""What a tool is: name, description, JSON schema, annotations and `async run(args, ctx)`.

Tools never import providers, session/ or front ends. What they need from outside arrives in `ToolContext`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.llm.messages import ContentBlock
from agentcli.record import record
from agentcli.redact import Redactor
from agentcli.tools.delegation import SubagentFactory
from agentcli.tools.shells import BackgroundShell

if TYPE_CHECKING:
    from agentcli.sandbox.core import Sandbox


class ReadGuard(Protocol):
    """What the permission rules say about reading files, for the search tools and the sandbox's walk of the
    project (which leave out what a Read deny rule protects: `.env`, keys). The policy in force is it."""

    def read_denied(self, path: str | os.PathLike[str]) -> bool:
        """Whether a deny rule forbids reading `path` (absolute, or relative to the shell cwd)."""
        ...

    def read_denied_globs(self) -> tuple[str, ...]:
        """Name patterns every file of which is denied (`.env*`), for ripgrep's `--glob '!…'`."""
        ...

    def denied_matcher(self) -> tuple[Callable[[str], bool], dict[Any, Any]]:
        """A test on an absolute, normalized path alone (no I/O), and a cache for walks that lives with the rules."""
        ...


class ModelInfo(Protocol):
    """The session's model as tools need it, asked at the moment they run (a /model switch is seen at once)."""

    @property
    def model(self) -> str: ...

    @property
    def accepts_images(self) -> bool: ...


class FileAccess(Protocol):
    """Where Read, Write and Edit get and put a text file's content, once they have decided they may (the path
    resolved and inside the project, read before it is changed): the local disk (agentcli.tools.fileaccess) unless
    a front end injects another, such as an editor's buffers over ACP. Failures are OSError (or NotText)."""

    async def read_text(self, path: Path, ctx: ToolContext) -> str:
        """The text of the regular file `path` (real, absolute, checked by the caller)."""
        ...

    async def write_text(self, path: Path, content: str, ctx: ToolContext) -> os.stat_result | None:
        """Replace (or create) `path` with `content`; the file's stat afterwards, None when it is not on disk
        (kept in an editor's buffer)."""
        ...

    def buffers(self, path: Path, ctx: ToolContext) -> bool:
        """True when `path`'s text is an editor's buffer, not the disk's file (which may be older, or missing):
        the read-before-edit check then compares the text read (agentcli.tools.files), not the file's time."""
        ...


@record
class BufferStamp:
    """What a tool read from (or wrote to) an editor's buffer of a file: the text's digest, and the file's time on
    disk then (None: not on disk), for the read-before-edit check (agentcli.tools.files)."""

    digest: str
    mtime_ns: int | None


class ToolLookup(Protocol):
    def __call__(self, name: str) -> Tool | str | None:
        """A tool not offered this turn (a deferred MCP tool) by name, or why it cannot run, or None if unknown."""
        ...


class RunCall(Protocol):
    def __call__(self, name: str, args: dict[str, Any]) -> Awaitable[ToolOutput]: ...


@record(frozen=False)
class WebSettings:
    """What the web tools need from settings and rules (tools read neither): the `[web_search]` table, the
    private hosts an allow rule names exactly (`WebFetch(domain:127.0.0.1)`), and WebFetch's page cache
    (url → (fetched at, content type, text))."""

    search: dict[str, Any] = field(default_factory=dict)
    private_hosts: frozenset[str] = frozenset()
    cache: dict[str, tuple[float, str, str]] = field(default_factory=dict)


@record(frozen=False)
class ToolContext:
    """Per-session state handed to every tool call: each capability a tool uses is a typed field.

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
    sandbox: Sandbox | None = None
    # The read-deny checks of the policy in force (set by its `bind`, again when a preset brings another).
    reads: ReadGuard | None = None
    # The read tracker: a file's real path → its st_mtime_ns when last read or written by a tool, or the stamp of
    # the text read through an editor's buffer (agentcli.tools.files), so an edit of a file changed since it was
    # read is refused.
    read_files: dict[str, int | BufferStamp] = field(default_factory=dict)
    allow_outside: bool = False  # the file tools may work outside the project for the whole session
    # (shell cwd, path as written) → the real path the policy decided it as; None where no policy decides
    # (a bare tool context): agentcli.tools.paths, so a link flipped after the decision is not followed
    decided_paths: dict[tuple[str, str], str] | None = None
    web: WebSettings = field(default_factory=WebSettings)
    model: ModelInfo | None = None  # None: no model to ask (unit tests of the tools): images are refused
    tool_lookup: ToolLookup | None = None  # the registry's, for tools its sources hold back
    shells: dict[str, BackgroundShell] = field(default_factory=dict)  # agentcli.tools.background, by id
    # Rules (`Bash(make deploy)`) whose commands may run outside the sandbox after asking (agentcli.core.escalation)
    unsandboxed: list[str] = field(default_factory=list)
    sandbox_failure_told: bool = False  # a sandbox that turned out not to work is told once, in the first result
    # What finished in the background for the model to hear at its next turn (a background subagent's answer):
    # objects with `text` (and `result`, the subagent's RunResult). The loop drains it.
    inbox: list[Any] = field(default_factory=list)
    # The session's subagent runner (agentcli.agents.runner), for the Task tools; None when subagents are off.
    subagents: SubagentFactory | None = None
    # The skill the model loaded last (agentcli.skills.tool) and its `allowed-tools` rules, which run without
    # asking while it is active (deny rules still win: the policy checks them first).
    active_skill: str | None = None
    skill_allowed_tools: tuple[str, ...] = ()
    # A tool call made for the user, not by the model (a custom command's !`command`), decided and run as the
    # model's would be (hooks, policy and its question, sandbox): the agent's `run_call`; None outside an agent.
    run_call: RunCall | None = None
    # Where the file tools' text comes from and goes to (None: the local disk); an ACP front end gives the
    # editor's file system, so unsaved buffers are seen and the editor follows the writes.
    files: FileAccess | None = None
    _redactor: Redactor | None = field(default=None, repr=False, compare=False)

    def redact(self, text: str, *, shapes: bool = False) -> str:
        """`text` without the session's secrets. Key-shaped strings stay unless `shapes` (a project's own test
        fixtures are legitimate tool output); the session file's redactor catches those, and text that leaves
        the machine (telemetry) asks for `shapes`."""
        if self._redactor is None or self._redactor.given != self.secrets:
            self._redactor = Redactor(self.secrets, patterns=False)
        return self._redactor.text(text, patterns=shapes)


@record
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


class PromptSource:
    """A ToolSource with no servers, mentions or lookups of its own (skills, custom commands): what they do not
    have is answered here once; `_notices` is what `notices()` hands over and empties."""

    _notices: list[tuple[str, str]]

    async def refresh(self) -> None:
        return None

    def tools(self) -> list[Tool]:
        return []

    def lookup(self, name: str) -> Tool | str | None:
        return None

    def notices(self) -> list[tuple[str, str]]:
        out, self._notices = self._notices, []
        return out

    def servers(self) -> list[tuple[str, str]]:
        return []

    async def attachments(self, text: str) -> list[ContentBlock]:
        return []

    async def expand(self, text: str) -> str | None:
        return None

    async def aclose(self) -> None:
        return None
