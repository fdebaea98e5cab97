"""The model side of an agent, as every agent of a session (the main one, a subagent, a fallback) gets it: the
provider for a selection, the price of a request, the context window of a model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentcli.assembly import selection
from agentcli.errors import ConfigError
from agentcli.llm.messages import Usage
from agentcli.net.http import is_loopback_url
from agentcli.providers import catalog
from agentcli.providers.base import Provider
from agentcli.settings.config import Settings


def make_provider(sel: selection.Selection) -> Provider:
    from agentcli.providers.factory import make_provider as factory

    return factory(sel.config)


def cost_fn(prices: dict[str, dict[str, Any]], provider: str) -> Callable[[str, Usage], float]:
    def cost(model: str, usage: Usage) -> float:
        return catalog.cost_usd(model, usage, prices, provider=provider)

    return cost


def context_window_fn(prices: dict[str, dict[str, Any]], settings: Settings | None = None,
                      sel: selection.Selection | None = None) -> Callable[[str], int | None]:
    """A model's context window: `model_context_window` (the provider's table, then the top level), what the
    local server reported for this model (llama.cpp /props, Ollama num_ctx or /api/show), then the catalog."""
    fixed = _setting_window(settings, sel)
    reported: dict[str, int | None] = {}

    def window(model: str) -> int | None:
        if fixed:
            return fixed
        if sel is not None and model == sel.model:
            if not reported.get(model):  # the first-use probe may fill the cache after the build
                reported[model] = _server_window(sel)
            if reported[model]:
                return reported[model]
        return catalog.context_window(model, prices)

    return window


def _setting_window(settings: Settings | None, sel: selection.Selection | None) -> int | None:
    if settings is None:
        return None
    conf = settings.model.providers.get(sel.config.profile or sel.config.name, {}) if sel is not None else {}
    value = conf.get("model_context_window") or settings.model.context_window
    if value is None:
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"model_context_window must be a number of tokens, got {value!r}") from None
    if n < 1024:
        raise ConfigError(f"model_context_window must be at least 1024 tokens, got {n}")
    return n


def _server_window(sel: selection.Selection) -> int | None:
    """What a local server said about its context (cached by the first-use probe); Ollama's num_ctx option
    is what it really uses."""
    url = sel.config.base_url
    if sel.config.name == "ollama":
        num_ctx = sel.config.options.get("num_ctx")
        if isinstance(num_ctx, int) and num_ctx > 0:
            return num_ctx
        from agentcli.providers.ollama import ollama_base_url

        url = ollama_base_url(url)
    if url is None or not is_loopback_url(url):
        return None
    from agentcli.providers.probecache import cached

    found = cached(url, sel.model)
    return found.context_window if found is not None else None
