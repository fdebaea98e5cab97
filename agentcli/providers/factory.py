"""Provider construction: a lazy name → "module:Class" table, so a run imports only the adapter it uses.

    make_provider(ProviderConfig("anthropic", api_key=...))       # retries included
    provider_config_from_env("openai", {"max_retries": 2})
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

from agentcli.errors import ConfigError
from agentcli.providers.base import Provider, ProviderConfig

PROVIDERS: dict[str, str] = {
    "anthropic": "agentcli.providers.anthropic:AnthropicProvider",
    "openai": "agentcli.providers.openai_chat:OpenAIChatProvider",
    "openai-responses": "agentcli.providers.openai_responses:OpenAIResponsesProvider",
    "google": "agentcli.providers.gemini:GeminiProvider",
    "ollama": "agentcli.providers.ollama:OllamaProvider",
    "azure": "agentcli.providers.azure:AzureOpenAIProvider",
    "vertex": "agentcli.providers.vertex:VertexProvider",
    "bedrock": "agentcli.providers.bedrock:BedrockProvider",
}
ALIASES = {"claude": "anthropic", "openai-chat": "openai", "responses": "openai-responses", "gemini": "google"}

# name → (API key variables, base URL variable, {option: variable})
ENV: dict[str, tuple[tuple[str, ...], str | None, dict[str, str]]] = {
    "anthropic": (("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", {"auth_token": "ANTHROPIC_AUTH_TOKEN"}),
    "openai": (("OPENAI_API_KEY",), "OPENAI_BASE_URL", {}),
    "openai-responses": (("OPENAI_API_KEY",), "OPENAI_BASE_URL", {}),
    "google": (("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GOOGLE_GEMINI_BASE_URL", {}),
    "ollama": ((), "OLLAMA_HOST", {}),
    "vertex": ((), "VERTEX_BASE_URL", {}),
    "bedrock": ((), "BEDROCK_BASE_URL", {}),
    "azure": (("AZURE_OPENAI_API_KEY",), "AZURE_OPENAI_ENDPOINT",
              {"ad_token": "AZURE_OPENAI_AD_TOKEN", "api_version": "OPENAI_API_VERSION"}),
}


def canonical(name: str) -> str:
    n = name.strip().lower()
    return ALIASES.get(n, n)


def provider_class(name: str) -> Any:
    """The adapter class for `name`, imported now."""
    target = PROVIDERS.get(canonical(name))
    if target is None:
        known = ", ".join(sorted(PROVIDERS))
        raise ConfigError(f"unknown provider {name!r}", hint=f"choose one of: {known}")
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def make_provider(cfg: ProviderConfig, *, retries: bool = True) -> Provider:
    """The adapter for `cfg.name`, wrapped in `RetryingProvider` unless `retries=False`."""
    provider: Provider = provider_class(cfg.name)(cfg)
    if cfg.options.get("text_tool_calls") and canonical(cfg.name) == "openai":
        # Profiles of local hosts: tool calls and <think> written as text become real events (Ollama does it itself).
        from agentcli.providers.textcalls import TextCallProvider

        provider = TextCallProvider(provider)
    if retries and cfg.max_retries > 0:
        from agentcli.providers.retry import RetryingProvider

        return RetryingProvider(provider, cfg)
    return provider


def provider_config_from_env(
    name: str,
    overrides: Mapping[str, Any] | None = None,
    *,
    defaults: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> ProviderConfig:
    """A ProviderConfig from, lowest first: `defaults` (config files) < environment < `overrides` (flags).
    Keys are ProviderConfig fields; `options` dicts are merged, not replaced."""
    env = os.environ if env is None else env
    name = canonical(name)
    keys, url_var, option_vars = ENV.get(name, ((), None, {}))
    from_env: dict[str, Any] = {}
    key = next((env[k] for k in keys if env.get(k)), None)
    if key:
        from_env["api_key"] = key
    if url_var and env.get(url_var):
        from_env["base_url"] = env[url_var]
    env_options = {opt: env[var] for opt, var in option_vars.items() if env.get(var)}
    fields: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for layer in (defaults or {}, from_env, overrides or {}):
        for k, v in layer.items():
            if k == "options":
                options.update(v)
            elif v is not None:
                fields[k] = v
        if layer is from_env:
            options.update(env_options)
    fields.pop("name", None)
    try:
        return ProviderConfig(name=name, options=options, **fields)
    except TypeError as e:
        raise ConfigError(f"invalid provider settings for {name}: {e}") from None
