"""What a run knows after every settings layer is merged: `Settings`, made of typed sections (model, permissions,
sandbox, mcp, hooks, session, telemetry), each handed to the part that uses it.

Pure data, standard library only: anything may import this module (the sandbox does) without importing how
settings are read (agentcli.settings.config) or checked (agentcli.settings.schema). No generated __repr__ (it
would print API keys: `secrets`, provider tables) and no __eq__ (nothing compares two): creating these classes
is paid on every start, ~0.45 ms each without them against ~0.9 with.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.record import record


@record(repr=False, eq=False)
class ModelSettings:
    """Which model, how to reach it, and what to ask of it."""

    name: str | None = None  # `model`: provider/model or a bare name
    provider: str | None = None
    base_url: str | None = None
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)  # [providers.NAME] tables
    prices: dict[str, dict[str, Any]] = field(default_factory=dict)
    # [model_overrides]: a model name an application asks for → the model agentcli runs (agentcli.assembly.selection)
    overrides: dict[str, str] = field(default_factory=dict)
    max_tokens: int = 8192
    request_timeout_s: float = 600.0
    max_retries: int = 4
    effort: str | None = None
    show_thinking: bool = True
    context_window: int | None = None  # overrides the catalog and what a local server reports
    auto_compact_token_limit: int | None = None  # compact past this many tokens (default: 80 % of window)
    compact_model: str | None = None  # the model that writes compaction summaries (default: the session's)
    fallback_model: str | None = None  # --fallback-model: used once the main model is overloaded/unavailable
    max_thinking_tokens: int | None = None
    thinking: str | None = None  # adaptive | enabled | disabled


@record(repr=False, eq=False)
class PermissionSettings:
    """The permission mode and the rules given outside the settings files' own [permissions] tables."""

    mode: str = "default"
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    add_dirs: tuple[Path, ...] = ()
    from_settings_arg: dict[str, Any] | None = None  # the `permissions` table of --settings
    allow_bypass: bool = False  # --allow-dangerously-skip-permissions: bypass may be entered mid-session
    # The mode when no flag, preset or settings file names one: "default" (Claude Code's, for -p and the SDK);
    # the REPL's is "auto", where the kernel sandbox is the wall and /rewind the net (issue 27).
    fallback: str = "default"


@record(repr=False, eq=False)
class SandboxSettings:
    """The kernel sandbox around every command (docs/sandbox.md)."""

    mode: str | None = None  # None: the preset's, else workspace-write (agentcli.sandbox)
    network: bool = False
    allowed_hosts: tuple[str, ...] = ()
    env_exclude: tuple[str, ...] = ()  # `shell_env_exclude`
    env_keep: tuple[str, ...] = ()  # `shell_env_keep`
    unconfined: tuple[str, ...] = ()  # [sandbox] unconfined: Bash rules the user let run outside it
    hooks: bool = False  # true: hook commands run in the kernel sandbox, as Bash does (see hooks/scripts)
    allowed_sockets: tuple[str, ...] = ()  # host Unix sockets commands may reach (agentcli.sandbox.sockets)


@record(repr=False, eq=False)
class McpSettings:
    config: tuple[str, ...] = ()  # --mcp-config values (files or JSON), see agentcli.mcp.config
    strict_config: bool = False
    # how long the first request waits for MCP servers still connecting; None: until each connects or fails
    # (bounded by MCP_TIMEOUT, as Claude Code's headless runs do); the REPL sets 0 (it never blocks on them)
    grace_s: float | None = None
    connect_timeout_s: float = 30.0
    tool_timeout_s: float = 120.0
    schema_budget: float = 0.10  # share of the context window MCP tool schemas may take before deferral
    sandbox: bool = False  # run every stdio MCP server under the kernel sandbox (per server: `sandbox`)
    start_delay_s: float = 0.0  # the REPL sets it so its prompt is drawn before MCP servers start
    # Servers from Claude Code's ~/.claude.json (user, then this project's): (source, mcpServers object)
    claude_servers: tuple[tuple[str, dict[str, Any]], ...] = ()


@record(repr=False, eq=False)
class HookSettings:
    layers: tuple[tuple[str, Any], ...] = ()  # (source, `hooks` table) per layer, lowest first; see agentcli.hooks
    include_events: bool = False  # --include-hook-events


@record(repr=False, eq=False)
class SessionSettings:
    """Which session this run continues, and the limits on what it may do."""

    continue_: bool = False
    resume: str | None = None
    fork: bool = False
    session_id: str | None = None
    no_persistence: bool = False
    name: str | None = None
    resume_at: str | None = None  # --resume-session-at: resume up to this message
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tool_calls_per_turn: int = 50
    tool_timeout_s: float = 600.0
    subagent_max_depth: int = 1  # how deep Task may nest: 1 = the main agent's children spawn none of their own
    subagent_max_turns: int = 40
    max_parallel_subagents: int = 4


@record(repr=False, eq=False)
class TelemetrySettings:
    """OpenTelemetry export (docs/telemetry.md): off unless a layer says `true`."""

    enabled: bool = False
    log_prompts: bool = False  # export prompts and tool inputs/outputs too (redacted)


@record(repr=False, eq=False)
class Source:
    """One place settings were read from, and what it gave (for `agentcli doctor`)."""

    name: str  # user, project, local, --settings, environment, claude-user, …
    path: str
    state: str  # read, absent, untrusted (partly withheld), not loaded (--setting-sources)
    taken: tuple[str, ...] = ()
    ignored: tuple[tuple[str, str], ...] = ()  # (key, why)


@record(repr=False, eq=False)
class Settings:
    """Everything a run needs to know, after all layers are merged: the run's own options and one section per part."""

    cwd: Path = field(default_factory=Path.cwd)
    model: ModelSettings = field(default_factory=ModelSettings)
    permissions: PermissionSettings = field(default_factory=PermissionSettings)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    mcp: McpSettings = field(default_factory=McpSettings)
    hooks: HookSettings = field(default_factory=HookSettings)
    session: SessionSettings = field(default_factory=SessionSettings)
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)
    preset: str | None = None
    append_system_prompt: str | None = None
    system_prompt: str | None = None
    output_format: str = "text"
    include_partial_messages: bool = False
    verbose: bool = False
    web_search: dict[str, Any] = field(default_factory=dict)  # [web_search]: backend, url, api_key_env
    agents: tuple[Any, ...] = ()  # subagent definitions given in code (Python API), beside the files
    untrusted: tuple[str, ...] = ()  # what the project's settings files would grant, withheld until trusted
    secrets: tuple[str, ...] = ()
    settings: str | None = None  # --settings FILE|JSON: one more layer, above the local project layer
    # Claude Code's flags, as the Claude Agent SDK passes them (agentcli.settings.flagvalues, docs/sdk-flags.md)
    tools: tuple[str, ...] | None = None  # --tools: the exact tool set (() none); None: the preset's or default
    setting_sources: tuple[str, ...] | None = None  # --setting-sources: which of user/project/local load
    json_schema: dict[str, Any] | None = None  # --json-schema: structured output (agentcli.structured)
    sources: tuple[Source, ...] = ()  # every layer read, for `agentcli doctor`
    notices: tuple[str, ...] = ()  # settings read but not supported or ignored: one notice each at start-up
    # `project_root` once found for this object (it is read by each settings layer and each part at start-up);
    # not an argument, so `replace()` gives the new object its own, found again from its cwd
    found_root: Path | None = field(default=None, init=False, repr=False, compare=False)

    def loads(self, source: str) -> bool:
        """Whether the settings layer `source` (user, project, local) is read for this run."""
        return self.setting_sources is None or source in self.setting_sources

    @property
    def project_root(self) -> Path:
        root = self.found_root
        if root is None:
            root = paths.find_project_root(self.cwd)
            object.__setattr__(self, "found_root", root)  # a cache of a frozen object (see `found_root`)
        return root
