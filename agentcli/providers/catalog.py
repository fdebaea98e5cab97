"""The model catalog (catalog.toml): which provider serves a model, its context window and its prices.

    resolve_model("anthropic/claude-sonnet-4-5") -> ("anthropic", "claude-sonnet-4-5")
    resolve_model("sonnet")                      -> ("anthropic", "claude-sonnet-4-5")
    resolve_model("gpt-5-mini-2025-08-07")       -> ("openai", "gpt-5-mini-2025-08-07")  # priced as gpt-5-mini
    cost_usd("claude-sonnet-4-5", usage)         -> dollars; unknown and local models cost 0

User overrides are a dict shaped like the file's `[models]` table (from config), merged per field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from agentcli.errors import UsageError
from agentcli.llm.messages import Usage
from agentcli.providers.datafile import load_builtin_toml
from agentcli.record import record

KNOWN_PROVIDERS = frozenset(
    {"anthropic", "openai", "google", "gemini", "ollama", "openai-responses", "responses", "openai-chat", "azure",
     "vertex", "bedrock"}
)
_PREFIX_FALLBACK = (("claude", "anthropic"), ("gpt", "openai"), ("o1", "openai"), ("o3", "openai"),
                    ("o4", "openai"), ("chatgpt", "openai"), ("codex", "openai"), ("gemini", "google"))
_LOCAL_PROVIDERS = frozenset({"ollama", "local", "llamacpp", "llama.cpp", "lmstudio", "vllm"})
_DATED = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")
Overrides = Mapping[str, Mapping[str, Any]]


@record
class ModelInfo:
    """One catalog entry. Prices are USD per million tokens."""

    name: str
    provider: str
    context_window: int | None = None
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    images: bool | None = None  # takes image input; None: as its provider's hosted models do


@cache
def _base_table() -> dict[str, dict[str, Any]]:
    models: dict[str, dict[str, Any]] = load_builtin_toml(Path(__file__).with_name("catalog.toml"))["models"]
    return models


@cache
def _base_aliases() -> dict[str, str]:
    return {a.lower(): name for name, d in _base_table().items() for a in d.get("aliases", ())}


def _table(overrides: Overrides | None) -> dict[str, dict[str, Any]]:
    base = _base_table()
    if not overrides:
        return base
    merged = dict(base)
    for name, fields in overrides.items():
        merged[name] = {**base.get(name, {}), **fields}
    return merged


def lookup(model: str, overrides: Overrides | None = None) -> ModelInfo | None:
    """The catalog entry for `model` (a name, alias or dated snapshot, with or without `provider/`)."""
    table = _table(overrides)
    name = canonical_name(model, overrides)
    if name is None:
        return None
    d = table[name]
    return ModelInfo(
        name=name,
        provider=str(d.get("provider", "")),
        context_window=int(d["context"]) if d.get("context") else None,
        input=float(d.get("input", 0.0)),
        output=float(d.get("output", 0.0)),
        cache_read=float(d.get("cache_read", 0.0)),
        cache_write=float(d.get("cache_write", 0.0)),
        images=bool(d["images"]) if "images" in d else None,
    )


def canonical_name(model: str, overrides: Overrides | None = None) -> str | None:
    """The catalog key `model` resolves to, or None."""
    table = _table(overrides)
    aliases = _base_aliases()
    if overrides:
        aliases = {**aliases, **{a.lower(): n for n, d in overrides.items() for a in d.get("aliases", ())}}
    name = model.strip()
    if "/" in name and name.split("/", 1)[0].lower() in KNOWN_PROVIDERS:
        name = name.split("/", 1)[1]
    for candidate in (name, name.lower(), _DATED.sub("", name.lower())):
        if candidate in table:
            return candidate
        if candidate in aliases:
            return aliases[candidate]
    low = name.lower()
    best = max((k for k in table if low.startswith(k + "-")), key=len, default=None)
    return best


def resolve_model(spec: str, provider: str | None = None, overrides: Overrides | None = None) -> tuple[str, str]:
    """(provider, model) for `--model` / `--provider`. The model keeps the user's spelling (aliases are
    expanded); raises UsageError when no provider can be determined."""
    spec = spec.strip()
    if not spec:
        raise UsageError("empty model name", hint="pass --model provider/model, e.g. anthropic/claude-sonnet-4-5")
    head, sep, tail = spec.partition("/")
    if provider is None and sep and head.lower() in KNOWN_PROVIDERS:
        provider, spec = head.lower(), tail
    elif provider is not None and sep and head.lower() == provider.lower():
        spec = tail
    name = canonical_name(spec, overrides)
    if name is not None and spec.lower() in _base_aliases():
        spec = name  # `sonnet` → the model it stands for
    if provider is not None:
        return provider, spec
    info = lookup(spec, overrides)
    if info is not None and info.provider:
        return info.provider, spec
    low = spec.lower()
    for prefix, prov in _PREFIX_FALLBACK:
        if low.startswith(prefix):
            return prov, spec
    raise UsageError(
        f"cannot tell which provider serves model {spec!r}",
        hint=f"name it as provider/model (e.g. openai/{spec} for an OpenAI-compatible server) or pass --provider",
    )


def cost_usd(model: str, usage: Usage, overrides: Overrides | None = None, *, provider: str | None = None) -> float:
    """The dollar cost of `usage` on `model`; 0 for local providers and models the catalog does not know."""
    if provider is not None and provider.lower() in _LOCAL_PROVIDERS:
        return 0.0
    info = lookup(model, overrides)
    if info is None:
        return 0.0
    total = (
        usage.input_tokens * info.input
        + usage.output_tokens * info.output
        + usage.cache_read_tokens * info.cache_read
        + usage.cache_write_tokens * info.cache_write
    )
    return total / 1_000_000


IMAGE_PROVIDERS = ("anthropic", "openai", "google")


def accepts_images(model: str, overrides: Overrides | None = None) -> bool:
    """Whether `model` takes image input: an `images = true|false` key on its catalog (or config) entry, else its
    provider's hosted models do; models the catalog does not know (local ones) are taken as text-only."""
    info = lookup(model, overrides)
    if info is None:
        return False
    return info.images if info.images is not None else info.provider in IMAGE_PROVIDERS


def context_window(model: str, overrides: Overrides | None = None) -> int | None:
    info = lookup(model, overrides)
    return info.context_window if info else None


def models(provider: str | None = None, overrides: Overrides | None = None) -> list[ModelInfo]:
    """Every catalog entry (of `provider`, when given), in file order."""
    out = [lookup(name, overrides) for name in _table(overrides)]
    return [m for m in out if m is not None and (provider is None or m.provider == provider)]


def model_names(overrides: Overrides | None = None) -> list[str]:
    """Every catalog name and alias (for completion)."""
    return [*_table(overrides), *_base_aliases()]
