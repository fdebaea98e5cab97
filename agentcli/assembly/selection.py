"""Which provider and model a run uses, from flags, config and environment.

Order: `--model provider/model` (a provider or an OpenAI-compatible profile name) > `--provider` (+ bare
`--model`) > a bare model name the catalog knows or recognises by prefix > a base URL (`--base-url`,
`AGENTCLI_HOST`; see profiles.infer_provider) > whichever provider's environment variables are set.
The catalog, factory and profiles own the details; this module only puts them in order.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from agentcli.errors import ConfigError, UsageError
from agentcli.net.http import is_loopback_url
from agentcli.providers import catalog, factory, profiles
from agentcli.providers.base import ProviderConfig
from agentcli.record import record

DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-5",
    "openai-responses": "gpt-5",
    "google": "gemini-2.5-pro",
    "ollama": "qwen3",
}
LOCAL_MODEL = "default"  # what a local OpenAI-compatible server is asked for when no model is named


@record
class Selection:
    config: ProviderConfig
    model: str

    @property
    def label(self) -> str:
        return f"{self.config.profile or self.config.name}/{self.model}"

    @property
    def pricing_provider(self) -> str:
        """What the catalog's cost function is told (local profiles and Ollama cost nothing)."""
        return self.config.profile or self.config.name


def _from_env() -> str | None:
    for name, (keys, url_var, _) in factory.ENV.items():
        if any(os.environ.get(k) for k in keys) or (url_var and os.environ.get(url_var)):
            return name
    return None


def choose(model: str | None, provider: str | None, base_url: str | None) -> tuple[str | None, str | None]:
    """(provider or profile name, model) from what the user gave; either may stay None."""
    if model:
        head, sep, tail = model.partition("/")
        if provider is None and sep and profiles.get_profile(head.lower()) is not None:
            return head.lower(), tail
        try:
            return catalog.resolve_model(model, provider)
        except UsageError:
            fallback = profiles.infer_provider(base_url) if base_url else _from_env()
            if fallback is None:
                raise
            return fallback, model
    if provider:
        return provider, None
    if base_url:
        return profiles.infer_provider(base_url), None
    return _from_env(), None


def overridden(model: str | None, overrides: Mapping[str, str] | None) -> str | None:
    """The model `[model_overrides]` puts in place of `model`, as Claude Code's `modelOverrides` do: a key is
    the name itself, else the catalog model it stands for (`sonnet` and `claude-sonnet-4-5-20250929` both match
    `claude-sonnet-4-5`), else `*` (any name). Applied once: a replacement is not looked up again."""
    if not model or not overrides:
        return model
    if model in overrides:
        return overrides[model]
    name = catalog.canonical_name(model)
    if name is not None and name in overrides:
        return overrides[name]
    return overrides.get("*", model)


def select(
    model: str | None,
    provider: str | None,
    base_url: str | None,
    provider_conf: dict[str, dict[str, Any]],
    *,
    request_timeout_s: float,
    max_retries: int,
    model_overrides: Mapping[str, str] | None = None,
) -> Selection:
    """Resolve everything into a ProviderConfig. Raises ConfigError when nothing says which provider to use,
    AuthError (from a profile) when a required key is missing. `model_overrides` replace a requested name first
    (see `overridden`); a replacement that names its provider (`llamacpp/qwen`) drops the caller's."""
    ollama = (provider or str(model or "").partition("/")[0]).lower() == "ollama"
    if base_url and not ollama:  # Ollama's own form, `host:port` with no scheme, stays Ollama's (OLLAMA_HOST)
        checked_base_url(base_url)
    replaced = overridden(model, model_overrides)
    if replaced != model and "/" in str(replaced):
        provider = None
    model = replaced
    name, model_name = choose(model, provider, base_url)
    if name is None:
        raise ConfigError("no provider configured", hint="pass --model provider/model or set a provider's API key")
    conf = dict(provider_conf.get(name, {}))
    conf_model = conf.pop("model", None)
    url = base_url or conf.pop("base_url", None)
    # [providers.openai] etc. configure a built-in adapter; other [providers.NAME] tables add or tune profiles.
    builtin = factory.canonical(name) in factory.PROVIDERS
    profile = None if builtin else profiles.get_profile(name, provider_conf)
    if profile is not None:
        cfg = profile.provider_config(base_url=url, request_timeout_s=request_timeout_s, max_retries=max_retries)
        return Selection(cfg, model_name or conf_model or profile.default_model or LOCAL_MODEL)
    name = factory.canonical(name)
    defaults: dict[str, Any] = {k: conf[k] for k in ("api_key", "options") if k in conf}
    cfg = factory.provider_config_from_env(
        name, {"base_url": url, "request_timeout_s": request_timeout_s, "max_retries": max_retries},
        defaults=defaults,
    )
    local = name == "openai" and is_loopback_url(cfg.base_url)
    if local and "text_tool_calls" not in cfg.options:
        # Small local models often write tool calls as text; extraction only fires on known tool names.
        cfg = replace(cfg, options={**cfg.options, "text_tool_calls": True})
    chosen = model_name or conf_model or (LOCAL_MODEL if local else DEFAULT_MODELS.get(name, LOCAL_MODEL))
    if name == "openai" and provider is None and cfg.base_url is None and _reasoning_model(chosen):
        cfg = replace(cfg, name="openai-responses")
    return Selection(cfg, chosen)


def _reasoning_model(model: str) -> bool:
    """Reasoning models stream their reasoning only through the Responses API; `--provider openai` keeps
    Chat Completions."""
    from agentcli.providers.openai_responses import needs_responses_api

    return needs_responses_api(model)


def check_credentials(provider: object) -> None:
    """The adapter's own key check, under the retry, fallback and text-call wrappers (each keeps the adapter as
    `inner`): AuthError when its key is missing. A model switch calls it first, so nothing is switched to a
    provider the next prompt would fail on."""
    while provider is not None:
        check = getattr(provider, "check_credentials", None)
        if callable(check):
            check()
            return
        provider = getattr(provider, "inner", None)


def checked_base_url(url: str) -> str:
    """A base URL parsed before anything runs: http(s), a host, a valid port; else a UsageError (exit 2) that
    shows how to write it. (`OLLAMA_HOST` keeps Ollama's own bare `host:port` form; it is not read here.)"""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    fix = "a local server: http://127.0.0.1:8080/v1 (llama.cpp, vLLM, LM Studio) or http://127.0.0.1:11434 (Ollama)"
    if "://" not in url:
        guess = "http://" + url.lstrip("/")
        if ":" in url.split("/", 1)[0] or "/" in url:  # host:port or host/path: only the scheme is missing
            raise UsageError(f"base URL {url!r} has no scheme", hint=f"did you mean {guess}?", code="bad_base_url")
        raise UsageError(f"base URL {url!r} is not a URL", hint=f"give the whole URL, e.g. {fix}",
                         code="bad_base_url")
    if parts.scheme not in ("http", "https"):
        raise UsageError(f"base URL {url!r}: only http and https are supported", hint=fix, code="bad_base_url")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port == -1:
        raise UsageError(f"base URL {url!r} has no usable host and port", hint=fix, code="bad_base_url")
    return url
