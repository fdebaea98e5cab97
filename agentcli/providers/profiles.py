"""OpenAI-compatible hosts as data (`profiles.toml`): base URL, key, quirks, default model.

A profile configures the OpenAI Chat Completions adapter through `ProviderConfig.options` (see
`Profile.options`); users override or add hosts under `[providers.<name>]` in their config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import field, fields
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agentcli.errors import AuthError, ConfigError
from agentcli.providers.base import ProviderConfig
from agentcli.providers.datafile import load_builtin_toml
from agentcli.record import record

_DATA = Path(__file__).with_name("profiles.toml")


@record
class Profile:
    """One OpenAI-compatible host and its quirks (field meanings are documented in profiles.toml)."""

    name: str
    label: str
    base_url: str
    adapter: str = "openai"
    api_key_env: str | None = None
    key_required: bool = True
    base_url_env: str | None = None
    default_model: str = ""
    max_tokens_field: str = "max_tokens"
    include_usage: bool = True
    reasoning_field: str = ""
    native_tools: bool = True
    text_tool_calls: bool = False
    tool_call_id: str = "any"
    local: bool = False
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold a key: out of any repr

    @property
    def options(self) -> dict[str, Any]:
        """What the OpenAI Chat adapter (and the factory, for `text_tool_calls`) read from
        `ProviderConfig.options`."""
        opts: dict[str, Any] = {
            "label": self.label,
            "key_env": self.api_key_env or "API key",
            "require_key": self.key_required,
            "max_tokens_field": self.max_tokens_field,
            "include_usage": self.include_usage,
            "native_tools": self.native_tools,
            "text_tool_calls": self.text_tool_calls,
            "tool_call_id": self.tool_call_id,
            "local": self.local,
        }
        if self.reasoning_field:
            opts["reasoning_fields"] = [self.reasoning_field]
        if self.headers:
            opts["extra_headers"] = dict(self.headers)
        return opts

    def resolve_base_url(self, env: Mapping[str, str] | None = None) -> str:
        """The profile's env var when set (a bare host gets the default path), else the default URL."""
        env = os.environ if env is None else env
        value = env.get(self.base_url_env, "").strip() if self.base_url_env else ""
        if not value:
            return self.base_url
        return with_default_path(normalize_host(value), urlsplit(self.base_url).path)

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        env = os.environ if env is None else env
        return (env.get(self.api_key_env) or None) if self.api_key_env else None

    def provider_config(
        self, env: Mapping[str, str] | None = None, *, base_url: str | None = None, **kw: Any
    ) -> ProviderConfig:
        """A ready ProviderConfig; raises AuthError naming the env var when a required key is missing."""
        key = self.api_key(env)
        if key is None and self.key_required:
            raise AuthError(f"no API key for {self.label}", hint=f"set {self.api_key_env or 'an API key'}")
        url = base_url or self.resolve_base_url(env)
        return ProviderConfig(
            name=self.adapter, base_url=url, api_key=key, profile=self.name, options=self.options, **kw
        )


def normalize_host(value: str) -> str:
    """`OLLAMA_HOST`-style values (`0.0.0.0:11434`, `localhost`) as a full http URL without trailing slash."""
    value = value.strip().rstrip("/")
    if "://" not in value:
        value = "http://" + value
    parts = urlsplit(value)
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"  # a bind-all address is where a server listens, not where a client connects
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


def with_default_path(url: str, path: str) -> str:
    """`url` unchanged when it has a path, else with `path` appended (`http://h:11434` → `…/v1`)."""
    return url if urlsplit(url).path not in ("", "/") else url.rstrip("/") + path


def _profile_from(name: str, data: Mapping[str, Any]) -> Profile:
    known = {f.name for f in fields(Profile)}
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"profile {name!r}: unknown field(s) {', '.join(sorted(unknown))}")
    values = dict(data)
    values.setdefault("label", name)
    if not values.get("base_url"):
        raise ConfigError(f"profile {name!r} has no base_url", hint=f"set providers.{name}.base_url")
    try:
        return Profile(name=name, **values)
    except TypeError as err:
        raise ConfigError(f"profile {name!r}: {err}") from err


def load_profiles(overrides: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Profile]:
    """Built-in profiles, with user overrides merged field by field. An override naming an unknown profile
    defines a new host only if it gives a base_url; other keys (api_key, model) belong to the provider."""
    raw = dict(_builtin())
    names = {f.name for f in fields(Profile)}
    for name, conf in (overrides or {}).items():
        picked = {k: v for k, v in conf.items() if k in names and k != "name"}
        if name in raw:
            raw[name] = {**raw[name], **picked}
        elif picked.get("base_url") and conf.get("type", "openai-compatible") == "openai-compatible":
            raw[name] = picked
    return {name: _profile_from(name, data) for name, data in raw.items()}


@cache
def _builtin() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = load_builtin_toml(_DATA)
    return data


def get_profile(name: str, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> Profile | None:
    """The named profile, or None when there is none."""
    return load_profiles(overrides).get(name)


def require_profile(name: str, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> Profile:
    profiles = load_profiles(overrides)
    try:
        return profiles[name]
    except KeyError:
        known = ", ".join(sorted(profiles))
        raise ConfigError(f"unknown provider profile {name!r}", hint=f"choose one of: {known}") from None


def infer_provider(base_url: str) -> str:
    """Which wire format an `AGENTCLI_HOST`-style URL speaks: anthropic.com → anthropic; a path ending in
    /v1 (or /vN, /openai) → openai (Chat Completions); anything else → ollama (native API)."""
    parts = urlsplit(base_url if "://" in base_url else "http://" + base_url)
    host = (parts.hostname or "").lower()
    if host == "anthropic.com" or host.endswith(".anthropic.com"):
        return "anthropic"
    if host.endswith("generativelanguage.googleapis.com"):
        return "google"
    last = parts.path.rstrip("/").rsplit("/", 1)[-1].lower()
    if (last[:1] == "v" and last[1:].isdigit()) or last in ("openai", "compatible-mode"):
        return "openai"
    return "ollama"
