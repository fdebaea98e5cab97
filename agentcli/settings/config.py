"""Settings, layered: defaults < ~/.agentcli/config.toml < project .agentcli/settings.toml < settings.local.toml
< environment < command-line flags.

Only reading lives here; agentcli.settings.writer is the one place that writes these files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.errors import ConfigError

SCALAR_KEYS = {
    "model": str,
    "provider": str,
    "base_url": str,
    "permission_mode": str,
    "max_turns": int,
    "max_budget_usd": float,
    "max_tool_calls_per_turn": int,
    "max_tokens": int,
    "request_timeout_s": float,
    "tool_timeout_s": float,
    "max_retries": int,
    "effort": str,
    "preset": str,
    "append_system_prompt": str,
    "show_thinking": bool,
    "model_context_window": int,
    "model_auto_compact_token_limit": int,
    "compact_model": str,
    "mcp_grace_s": float,
    "mcp_connect_timeout_s": float,
    "mcp_tool_timeout_s": float,
    "mcp_schema_budget": float,
    "mcp_sandbox": bool,
    "sandbox_mode": str,
    "sandbox_network": bool,
    "telemetry": bool,
    "sandbox_hooks": bool,
    "telemetry_log_prompts": bool,
    "subagent_max_depth": int,
    "subagent_max_turns": int,
    "max_parallel_subagents": int,
}
# Flags whose raw text agentcli.settings.flagvalues reads (a file, JSON, a list) before they become settings.
FLAG_VALUES = {"system_prompt_file", "append_system_prompt_file", "tools", "setting_sources", "json_schema",
               "max_thinking_tokens", "agents"}
# What --setting-sources without "user" still reads from the user's config.toml: which model and how to reach it.
PROVIDER_KEYS = ("model", "provider", "base_url", "providers", "prices", "max_retries", "request_timeout_s",
                 "model_overrides")
# Settings that are lists of strings (TOML arrays); see docs/sandbox.md.
LIST_KEYS = ("sandbox_allowed_hosts", "sandbox_allowed_sockets", "shell_env_exclude", "shell_env_keep")


# No generated __repr__ (it would print `secrets`, the API keys, wherever a Settings is shown) and no __eq__
# (nothing compares two): together 0.7 of the 2.3 ms this class costs every run to create.
@dataclass(slots=True, repr=False, eq=False)
class Settings:
    """Everything a run needs to know, after all layers are merged."""

    cwd: Path = field(default_factory=Path.cwd)
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    permission_mode: str = "default"
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    add_dirs: tuple[Path, ...] = ()
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tool_calls_per_turn: int = 50
    max_tokens: int = 8192
    request_timeout_s: float = 600.0
    tool_timeout_s: float = 600.0
    max_retries: int = 4
    effort: str | None = None
    preset: str | None = None
    append_system_prompt: str | None = None
    system_prompt: str | None = None
    output_format: str = "text"
    include_partial_messages: bool = False
    verbose: bool = False
    show_thinking: bool = True
    model_context_window: int | None = None  # overrides the catalog and what a local server reports
    model_auto_compact_token_limit: int | None = None  # compact past this many tokens (default: 80 % of window)
    compact_model: str | None = None  # the model that writes compaction summaries (default: the session's)
    sandbox_hooks: bool = False  # true: hook commands run in the kernel sandbox, as Bash does (see hooks/scripts)
    telemetry: bool = False  # OpenTelemetry export (also AGENTCLI_ENABLE_TELEMETRY=1); see docs/telemetry.md
    telemetry_log_prompts: bool = False  # export prompts and tool inputs/outputs too (redacted)
    subagent_max_depth: int = 1  # how deep Task may nest: 1 = the main agent's children spawn none of their own
    subagent_max_turns: int = 40
    max_parallel_subagents: int = 4
    web_search: dict[str, Any] = field(default_factory=dict)  # [web_search]: backend, url, api_key_env
    agents: tuple[Any, ...] = ()  # subagent definitions given in code (Python API), beside the files
    untrusted: tuple[str, ...] = ()  # what the project's settings files would grant, withheld until trusted
    continue_: bool = False
    resume: str | None = None
    fork_session: bool = False
    session_id: str | None = None
    no_session_persistence: bool = False
    name: str | None = None
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    prices: dict[str, dict[str, Any]] = field(default_factory=dict)
    # [model_overrides]: a model name an application asks for → the model agentcli runs (agentcli.assembly.selection)
    model_overrides: dict[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    mcp_config: tuple[str, ...] = ()  # --mcp-config values (files or JSON), see agentcli.mcp.config
    strict_mcp_config: bool = False
    # how long the first request waits for MCP servers still connecting; None: until each connects or fails
    # (bounded by MCP_TIMEOUT, as Claude Code's headless runs do); the REPL sets 0 (it never blocks on them)
    mcp_grace_s: float | None = None
    mcp_connect_timeout_s: float = 30.0
    mcp_tool_timeout_s: float = 120.0
    mcp_schema_budget: float = 0.10  # share of the context window MCP tool schemas may take before deferral
    mcp_sandbox: bool = False  # run every stdio MCP server under the kernel sandbox (per server: `sandbox`)
    mcp_start_delay_s: float = 0.0  # the REPL sets it so its prompt is drawn before MCP servers start
    sandbox_mode: str | None = None  # None: the preset's, else workspace-write (agentcli.sandbox)
    sandbox_network: bool = False
    sandbox_allowed_hosts: tuple[str, ...] = ()
    sandbox_allowed_sockets: tuple[str, ...] = ()  # host Unix sockets commands may reach (agentcli.sandbox.sockets)
    shell_env_exclude: tuple[str, ...] = ()
    shell_env_keep: tuple[str, ...] = ()
    sandbox_unconfined: tuple[str, ...] = ()  # [sandbox] unconfined: Bash rules the user let run outside it
    hooks: tuple[tuple[str, Any], ...] = ()  # (source, `hooks` table) per layer, lowest first; see agentcli.hooks
    settings: str | None = None  # --settings FILE|JSON: one more layer, above settings.local.toml
    settings_permissions: dict[str, Any] | None = None  # the `permissions` table of --settings
    # Claude Code's flags, as the Claude Agent SDK passes them (agentcli.settings.flagvalues, docs/sdk-flags.md)
    tools: tuple[str, ...] | None = None  # --tools: the exact tool set (() none); None: the preset's or default
    setting_sources: tuple[str, ...] | None = None  # --setting-sources: which of user/project/local load
    json_schema: dict[str, Any] | None = None  # --json-schema: structured output (agentcli.structured)
    fallback_model: str | None = None  # --fallback-model: used once the main model is overloaded/unavailable
    resume_session_at: str | None = None  # --resume-session-at: resume up to this message
    include_hook_events: bool = False
    allow_bypass_permissions: bool = False  # --allow-dangerously-skip-permissions: bypass may be entered mid-session
    max_thinking_tokens: int | None = None
    thinking: str | None = None  # adaptive | enabled | disabled

    def loads(self, source: str) -> bool:
        """Whether the settings layer `source` (user, project, local) is read for this run."""
        return self.setting_sources is None or source in self.setting_sources

    @property
    def project_root(self) -> Path:
        return paths.find_project_root(self.cwd)


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as a dict; {} when absent. A broken file is a ConfigError naming the file and the line."""
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err}") from err
    import tomllib  # only when a file exists: the parser is a measurable share of start-up

    try:
        with f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}", hint="fix or remove the file") from err
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err}") from err


def _apply(settings: Settings, data: dict[str, Any], source: str) -> Settings:
    changes: dict[str, Any] = {}
    for key, kind in SCALAR_KEYS.items():
        if key in data and data[key] is not None:
            try:
                changes[key] = kind(data[key])
            except (TypeError, ValueError) as err:
                raise ConfigError(f"{source}: '{key}' must be {kind.__name__}, got {data[key]!r}") from err
    table = data.get("sandbox")
    if isinstance(table, dict) and "unconfined" in table:
        value = table["unconfined"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{source}: 'sandbox.unconfined' must be a list of strings, got {value!r}")
        changes["sandbox_unconfined"] = (*settings.sandbox_unconfined, *value)
    for key in LIST_KEYS:
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: '{key}' must be a list of strings, got {value!r}")
            changes[key] = tuple(value)
    providers = data.get("providers")
    if isinstance(providers, dict):
        merged = {k: dict(v) for k, v in settings.providers.items()}
        for name, conf in providers.items():
            if isinstance(conf, dict):
                merged.setdefault(name, {}).update(conf)
        changes["providers"] = merged
    prices = data.get("prices")
    if isinstance(prices, dict):
        changes["prices"] = {**settings.prices, **prices}
    overrides = data.get("model_overrides")
    if overrides is not None:
        if not isinstance(overrides, dict) or not all(isinstance(v, str) and v for v in overrides.values()):
            raise ConfigError(f"{source}: 'model_overrides' must map model names to model names, got {overrides!r}")
        changes["model_overrides"] = {**settings.model_overrides, **overrides}
    if isinstance(data.get("web_search"), dict):
        changes["web_search"] = {**settings.web_search, **data["web_search"]}
    if data.get("hooks") is not None:
        changes["hooks"] = (*settings.hooks, (source, data["hooks"]))
    return replace(settings, **changes) if changes else settings


def read_settings_arg(value: str) -> tuple[dict[str, Any], str]:
    """`--settings` as Claude Code takes it: a JSON object inline, or the path of a JSON (or TOML) file."""
    import json

    text, source = value, "--settings"
    if not value.lstrip().startswith("{"):
        path = Path(value).expanduser()
        if path.suffix == ".toml":
            return read_toml(path), str(path)
        try:
            text, source = path.read_text(encoding="utf-8"), str(path)
        except OSError as err:
            raise ConfigError(f"--settings {value}: {err.strerror or err}",
                              hint="pass a JSON object or the path of a settings file") from err
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ConfigError(f"{source} is not valid JSON: {err}", hint="fix the JSON") from err
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must hold a JSON object", hint='e.g. {"hooks": {...}, "permissions": {...}}')
    return data, source


def _from_env(settings: Settings) -> Settings:
    env: dict[str, Any] = {}
    if os.environ.get("AGENTCLI_MODEL"):
        env["model"] = os.environ["AGENTCLI_MODEL"]
    if os.environ.get("AGENTCLI_PROVIDER"):
        env["provider"] = os.environ["AGENTCLI_PROVIDER"]
    if os.environ.get("AGENTCLI_HOST"):
        env["base_url"] = os.environ["AGENTCLI_HOST"]
    if any(os.environ.get(v, "").lower() in ("1", "true", "yes")
           for v in ("AGENTCLI_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY")):  # Claude Code's name too
        env["telemetry"] = True
    return _apply(settings, env, "environment")


def load_settings(cwd: Path, flags: dict[str, Any]) -> Settings:
    """Merge every layer. `flags` holds only the options the user actually gave (None means not given)."""
    if flags.keys() & FLAG_VALUES:
        from agentcli.settings.flagvalues import convert

        flags = convert(dict(flags))
    sources = flags.get("setting_sources")
    settings = Settings(cwd=cwd, setting_sources=sources)
    user = read_toml(paths.user_config_file())
    if not settings.loads("user"):  # the provider set-up always loads, as Claude Code's login does
        user = {k: v for k, v in user.items() if k in PROVIDER_KEYS}
    settings = _apply(settings, user, str(paths.user_config_file()))
    root = settings.project_root
    for name, source in (("settings.toml", "project"), ("settings.local.toml", "local")):
        if not settings.loads(source):
            continue
        f = paths.project_dir(root) / name
        data = read_toml(f)
        if data:  # both files come with a cloned repository: what they grant waits for trust
            data, withheld = _withhold_untrusted(root, data)
            settings = replace(settings, untrusted=(*settings.untrusted, *withheld))
        settings = _apply(settings, data, str(f))
    if flags.get("settings"):
        data, source = read_settings_arg(str(flags["settings"]))
        perms = data.get("permissions")
        settings = replace(_apply(settings, data, source), settings_permissions=perms if perms else None)
    settings = _from_env(settings)
    names = {f.name for f in fields(Settings)}
    given = {k: v for k, v in flags.items() if v is not None and k in names}
    settings = replace(settings, **given)
    if settings.provider is None and settings.model is None:
        settings = replace(settings, provider=_only_configured_provider(settings.providers))
    return replace(settings, secrets=_collect_secrets(settings))


def _withhold_untrusted(root: Path, data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The shared project file minus what it may not do before the user trusts it (see agentcli.settings.trust)."""
    from agentcli.settings import trust

    withheld = trust.untrusted_grants(root, data)
    if not withheld:
        return data, []
    return trust.withhold(data), withheld


def _only_configured_provider(providers: dict[str, dict[str, Any]]) -> str | None:
    """With no model or provider named anywhere, a config that sets up exactly one provider table (a base URL,
    a key or a model) means that provider."""
    usable = [name for name, conf in providers.items() if {"base_url", "api_key", "model"} & set(conf)]
    return usable[0] if len(usable) == 1 else None


SECRET_ENV_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "GROQ_API_KEY",
    "TOGETHER_API_KEY",
    "MISTRAL_API_KEY",
    "ZAI_API_KEY",
    "MINIMAX_API_KEY",
)


def _collect_secrets(settings: Settings) -> tuple[str, ...]:
    """Every secret value we know of, so it can be redacted wherever text leaves the process."""
    from agentcli.settings.secretenv import secret_values

    found = {os.environ[k] for k in SECRET_ENV_VARS if len(os.environ.get(k, "")) >= 8}
    found |= secret_values(os.environ)
    for conf in settings.providers.values():
        for key, value in conf.items():
            if isinstance(value, str) and ("key" in key or "token" in key) and len(value) >= 8:
                found.add(value)
    return tuple(sorted(found, key=len, reverse=True))
