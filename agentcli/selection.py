"""Which provider and model a run uses, from flags, config and environment.

Order: `--model provider/model` > `--provider` (+ bare `--model`) > a bare model name known to the catalog or
recognised by its prefix > a base URL (`--base-url`, `AGENTCLI_HOST`: anthropic.com → anthropic, a path ending
in /v1 → OpenAI-compatible, otherwise Ollama) > whichever provider's environment variables are set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from agentcli.errors import ConfigError
from agentcli.providers.base import ProviderConfig

PROVIDERS = ("anthropic", "openai", "openai-responses", "google", "ollama")

KEY_ENV = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "openai-responses": ("OPENAI_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "ollama": (),
}
URL_ENV = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "openai-responses": "OPENAI_BASE_URL",
    "google": "GOOGLE_GEMINI_BASE_URL",
    "ollama": "OLLAMA_HOST",
}
DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-5",
    "openai-responses": "gpt-5",
    "google": "gemini-2.5-pro",
    "ollama": "qwen3",
}
PREFIXES = (
    ("claude", "anthropic"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini", "google"),
)


@dataclass(frozen=True, slots=True)
class Selection:
    config: ProviderConfig
    model: str

    @property
    def label(self) -> str:
        return f"{self.config.name}/{self.model}"


def _known_provider(name: str) -> bool:
    if name in PROVIDERS:
        return True
    from agentcli.providers import profiles

    return profiles.get_profile(name) is not None


def provider_for_url(url: str) -> str:
    parsed = urlparse(url)
    host = parsed.hostname or ""
    if host.endswith("anthropic.com"):
        return "anthropic"
    if host.endswith("googleapis.com"):
        return "google"
    if parsed.path.rstrip("/").endswith("/v1"):
        return "openai"
    return "ollama"


def _provider_for_model(model: str) -> str | None:
    from agentcli.providers import catalog

    entry = catalog.lookup(model)
    if entry is not None:
        return entry.provider
    for prefix, provider in PREFIXES:
        if model.startswith(prefix):
            return provider
    return None


def _from_env() -> str | None:
    if os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return "anthropic"
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return "openai"
    if os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY"):
        return "google"
    if os.environ.get("OLLAMA_HOST"):
        return "ollama"
    if os.environ.get("ANTHROPIC_BASE_URL"):
        return "anthropic"
    return None


def choose(model: str | None, provider: str | None, base_url: str | None) -> tuple[str | None, str | None]:
    """(provider, model) from what the user gave; either may stay None."""
    if model and "/" in model:
        head, _, rest = model.partition("/")
        if _known_provider(head):
            return head, rest
    if provider:
        return provider, model
    if model:
        found = _provider_for_model(model)
        if found:
            return found, model
    if base_url:
        return provider_for_url(base_url), model
    return _from_env(), model


def select(
    model: str | None,
    provider: str | None,
    base_url: str | None,
    provider_conf: dict[str, dict[str, Any]],
    *,
    request_timeout_s: float,
    max_retries: int,
) -> Selection:
    """Resolve everything into a ProviderConfig. Raises ConfigError when nothing says which provider to use."""
    name, model_name = choose(model, provider, base_url)
    if name is None:
        raise ConfigError(f"cannot tell which provider serves model {model!r}",
                          hint="use --model provider/model, e.g. openai/" + (model or "gpt-5"))
    conf = dict(provider_conf.get(name, {}))
    profile_name: str | None = None
    from agentcli.providers import profiles

    profile = profiles.get_profile(name)
    if profile is not None:
        profile_name, name = name, profile.adapter
    url = base_url or conf.pop("base_url", None) or os.environ.get(URL_ENV.get(name, ""), None)
    key = conf.pop("api_key", None)
    for var in KEY_ENV.get(name, ()):
        key = key or os.environ.get(var)
    if profile is not None:
        url = url or profile.base_url
        key = key or (os.environ.get(profile.api_key_env) if profile.api_key_env else None)
        conf = {**profile.options, **conf}
    default = profile.default_model if profile is not None else None
    chosen = model_name or conf.pop("model", None) or default or DEFAULT_MODELS.get(name, "default")
    cfg = ProviderConfig(
        name=name,
        base_url=url,
        api_key=key,
        request_timeout_s=request_timeout_s,
        max_retries=max_retries,
        profile=profile_name,
        options=conf,
    )
    return Selection(cfg, chosen)
