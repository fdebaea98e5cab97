"""Settings, layered: defaults < ~/.agentcli/config.toml < project .agentcli/settings.toml < settings.local.toml
< --settings < environment < command-line flags. Each layer is checked (agentcli.settings.schema) and merged into
the sections of `Settings` (agentcli.settings.sections).

Only reading lives here; agentcli.settings.writer is the one place that writes these files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.errors import ConfigError
from agentcli.settings.sections import Settings, Source
from agentcli.settings.tomlfile import read_toml

__all__ = ["Settings", "load_settings", "read_settings_arg", "read_toml"]

# Flags whose raw text agentcli.settings.flagvalues reads (a file, JSON, a list) before they become settings.
FLAG_VALUES = {"system_prompt_file", "append_system_prompt_file", "tools", "setting_sources", "json_schema",
               "max_thinking_tokens", "agents"}
# What --setting-sources without "user" still reads from the user's config.toml: which model and how to reach it.
PROVIDER_KEYS = ("model", "provider", "base_url", "providers", "prices", "max_retries", "request_timeout_s",
                 "model_overrides")
WITHHELD = "withheld until the project is trusted"
# The flag layer (command line, Python API): flag name → (section, field); the file keys, plus these.
FLAG_FIELDS: dict[str, tuple[str, str]] = {
    "allowed_tools": ("permissions", "allowed_tools"),
    "disallowed_tools": ("permissions", "disallowed_tools"),
    "add_dirs": ("permissions", "add_dirs"),
    "allow_bypass_permissions": ("permissions", "allow_bypass"),
    "continue_": ("session", "continue_"),
    "resume": ("session", "resume"),
    "fork_session": ("session", "fork"),
    "session_id": ("session", "session_id"),
    "no_session_persistence": ("session", "no_persistence"),
    "name": ("session", "name"),
    "resume_session_at": ("session", "resume_at"),
    "mcp_config": ("mcp", "config"),
    "strict_mcp_config": ("mcp", "strict_config"),
    "mcp_start_delay_s": ("mcp", "start_delay_s"),
    "include_hook_events": ("hooks", "include_events"),
    "fallback_model": ("model", "fallback_model"),
    "thinking": ("model", "thinking"),
    **{k: ("", k) for k in ("system_prompt", "output_format", "include_partial_messages", "verbose", "agents",
                            "settings", "tools", "setting_sources", "json_schema")},
}


def put(settings: Settings, values: dict[str, Any], table: Mapping[str, tuple[Any, ...]]) -> Settings:
    """`settings` with `values` (keyed as in `table`) set in their sections."""
    by_section: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        section, name = table[key][:2]
        by_section.setdefault(section, {})[name] = value
    own = by_section.pop("", {})
    for section, changes in by_section.items():
        own[section] = replace(getattr(settings, section), **changes)
    return replace(settings, **own) if own else settings


def _apply(settings: Settings, data: dict[str, Any], source: str) -> Settings:
    """One layer (a file, --settings, the environment), checked, merged over `settings`."""
    from agentcli.settings.schema import FILE_KEYS, check

    data = check(data, source)
    settings = put(settings, {k: v for k, v in data.items() if k in FILE_KEYS}, FILE_KEYS)
    model, sandbox, hooks = settings.model, settings.sandbox, settings.hooks
    table = data.get("sandbox") or {}
    if "unconfined" in table:
        value = table["unconfined"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{source}: 'sandbox.unconfined' must be a list of strings, got {value!r}")
        sandbox = replace(sandbox, unconfined=(*sandbox.unconfined, *value))
    if "providers" in data:
        merged = {k: dict(v) for k, v in model.providers.items()}
        for name, conf in data["providers"].items():
            merged.setdefault(name, {}).update(conf)
        model = replace(model, providers=merged)
    if "prices" in data:
        model = replace(model, prices={**model.prices, **data["prices"]})
    if "model_overrides" in data:
        model = replace(model, overrides={**model.overrides, **data["model_overrides"]})
    web_search = {**settings.web_search, **data["web_search"]} if "web_search" in data else settings.web_search
    if data.get("hooks") is not None:
        hooks = replace(hooks, layers=(*hooks.layers, (source, data["hooks"])))
    return replace(settings, model=model, sandbox=sandbox, hooks=hooks, web_search=web_search)


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
    from agentcli.settings.schema import env_flag

    env: dict[str, Any] = {}
    for var, key in (("ANTHROPIC_MODEL", "model"), ("AGENTCLI_MODEL", "model"), ("AGENTCLI_PROVIDER", "provider"),
                     ("AGENTCLI_HOST", "base_url")):
        if os.environ.get(var):
            env[key] = os.environ[var]
    for var in ("AGENTCLI_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY"):
        if var in os.environ and env_flag(var, os.environ[var]):
            env["telemetry"] = True
    thinking = os.environ.get("MAX_THINKING_TOKENS", "").strip()
    if thinking:
        if not thinking.isdigit():
            raise ConfigError(f"environment variable MAX_THINKING_TOKENS={thinking!r} is not a whole number",
                              hint="set it to a number of tokens, e.g. 8000")
        env["max_thinking_tokens"] = int(thinking)
    return _apply(settings, env, "environment") if env else settings


def _source(name: str, path: Path | str, data: dict[str, Any], state: str) -> Source:
    from agentcli.settings.schema import KNOWN

    ignored = tuple((k, "not an agentcli setting") for k in data if k not in KNOWN)
    return Source(name, str(path), state, tuple(k for k in data if k in KNOWN), ignored)


def _claude_layer(settings: Settings, scope: str) -> Settings:
    """Claude Code's settings file of `scope` (agentcli.settings.claude), translated, under the same trust as
    agentcli's project files."""
    from agentcli.settings import claude

    root = settings.project_root
    f = claude.settings_file(scope, root)
    if not settings.loads(scope):
        return replace(settings, sources=(*settings.sources, Source(f"claude {scope}", str(f), "not loaded")))
    data, unsupported = claude.translate(claude.read_json(f))
    return _layer(settings, f"claude {scope}", f, data, unsupported, project=scope != "user")


def _layer(settings: Settings, name: str, f: Path, raw: dict[str, Any], unsupported: list[tuple[str, str]],
           *, project: bool) -> Settings:
    """One file's layer merged in, and its line for `agentcli doctor`. A project's file (it comes with a cloned
    repository) grants nothing until the user trusts it."""
    data = raw
    state = "read" if raw else "absent"
    if raw and project:
        data, withheld = _withhold_untrusted(settings.project_root, raw)
        settings = replace(settings, untrusted=(*settings.untrusted, *withheld))
        state = "not trusted: its grants are withheld" if withheld else "read (trusted, or grants nothing)"
    held = tuple((k, WITHHELD) for k in raw if k not in data)
    found = _source(name, f, data, state)
    settings = _apply(settings, data, str(f))
    found = replace(found, ignored=(*held, *found.ignored, *unsupported))
    return replace(settings, sources=(*settings.sources, found))


def _scope_layers(settings: Settings, scope: str) -> Settings:
    """Claude Code's file of `scope`, then agentcli's (which wins a key both set)."""
    settings = _claude_layer(settings, scope)
    if scope == "user":
        config = paths.user_config_file()
        user = read_toml(config)
        if not settings.loads("user"):  # the provider set-up always loads, as Claude Code's login does
            user = {k: v for k, v in user.items() if k in PROVIDER_KEYS}
        return _layer(settings, "user", config, user, [], project=False)
    f = paths.project_dir(settings.project_root) / ("settings.toml" if scope == "project" else "settings.local.toml")
    if not settings.loads(scope):
        return replace(settings, sources=(*settings.sources, Source(scope, str(f), "not loaded")))
    return _layer(settings, scope, f, read_toml(f), [], project=True)


def load_settings(cwd: Path, flags: dict[str, Any]) -> Settings:
    """Merge every layer. `flags` holds only the options the user actually gave (None means not given)."""
    if flags.keys() & FLAG_VALUES:
        from agentcli.settings.flagvalues import convert

        flags = convert(dict(flags))
    settings = Settings(cwd=cwd, setting_sources=flags.get("setting_sources"))
    for scope in ("user", "project", "local"):
        settings = _scope_layers(settings, scope)
    if flags.get("settings"):
        data, source = read_settings_arg(str(flags["settings"]))
        data, unsupported = _settings_arg_keys(data)
        perms = data.get("permissions")
        settings = _apply(settings, data, source)
        found = _source("--settings", source, data, "read")
        found = replace(found, ignored=(*found.ignored, *unsupported))
        settings = replace(settings, permissions=replace(settings.permissions, from_settings_arg=perms or None),
                           sources=(*settings.sources, found))
    settings = _claude_mcp(settings)
    settings = _from_env(settings)
    settings = _flags(settings, flags)
    if settings.model.provider is None and settings.model.name is None:
        only = _only_configured_provider(settings.model.providers)
        settings = replace(settings, model=replace(settings.model, provider=only))
    # (what trust withholds has a notice of its own: agentcli.assembly.runtime.untrusted_notice)
    notices = tuple(f"{s.path}: '{k}' ignored ({why})" for s in settings.sources for k, why in s.ignored
                    if why != WITHHELD)
    return replace(settings, secrets=_collect_secrets(settings), notices=(*settings.notices, *notices))


def _settings_arg_keys(data: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """`--settings` in Claude Code's format (as the Claude Agent SDK passes it) or agentcli's: agentcli's keys
    as they are, Claude Code's translated (`modelOverrides`, `env` …), the rest reported."""
    from agentcli.settings import claude
    from agentcli.settings.schema import KNOWN

    own = {k: v for k, v in data.items() if k in KNOWN}
    translated, unsupported = claude.translate({k: v for k, v in data.items() if k not in KNOWN})
    return {**translated, **own}, unsupported


def _claude_mcp(settings: Settings) -> Settings:
    """~/.claude.json's MCP servers, as data for agentcli.mcp.config (Claude Code reads them with the user's
    settings: `--setting-sources` without "user" leaves them out)."""
    from agentcli.settings import claude

    path = claude.state_file()
    if not settings.loads("user"):
        return replace(settings, sources=(*settings.sources, Source("claude state", str(path), "not loaded")))
    servers = claude.mcp_servers(settings.project_root)
    names = tuple(f"mcpServers.{n}" for _, table in servers for n in table)
    state = "read" if path.exists() else "absent"
    mcp = replace(settings.mcp, claude_servers=servers)
    return replace(settings, mcp=mcp, sources=(*settings.sources, Source("claude state", str(path), state, names)))


def _flags(settings: Settings, flags: dict[str, Any]) -> Settings:
    """The flag layer: values typed by the command line already; the Python API's are checked as files' are."""
    from agentcli.settings.schema import FILE_KEYS, check

    given = {k: v for k, v in flags.items() if v is not None}
    filed = {k: v for k, v in given.items() if k in FILE_KEYS}
    if filed:
        filed = check(filed, "the options given")
    settings = put(settings, filed, FILE_KEYS)
    return put(settings, {k: v for k, v in given.items() if k in FLAG_FIELDS}, FLAG_FIELDS)


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
    for conf in settings.model.providers.values():
        for key, value in conf.items():
            if isinstance(value, str) and ("key" in key or "token" in key) and len(value) >= 8:
                found.add(value)
    return tuple(sorted(found, key=len, reverse=True))
