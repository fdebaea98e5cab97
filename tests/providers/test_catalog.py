from __future__ import annotations

import subprocess
import sys

import pytest

from agentcli.errors import ConfigError, UsageError
from agentcli.llm.messages import Usage
from agentcli.providers import catalog
from agentcli.providers.base import ProviderConfig
from agentcli.providers.factory import PROVIDERS, make_provider, provider_class, provider_config_from_env


@pytest.mark.parametrize(
    ("spec", "provider", "expected"),
    [
        ("anthropic/claude-sonnet-4-5", None, ("anthropic", "claude-sonnet-4-5")),
        ("openai/gpt-5-mini", None, ("openai", "gpt-5-mini")),
        ("claude-opus-4-1-20250805", None, ("anthropic", "claude-opus-4-1-20250805")),
        ("gpt-4o-2024-08-06", None, ("openai", "gpt-4o-2024-08-06")),
        ("sonnet", None, ("anthropic", "claude-sonnet-4-5")),
        ("gemini-2.5-flash", None, ("google", "gemini-2.5-flash")),
        ("claude-9-future", None, ("anthropic", "claude-9-future")),
        ("o4-mini-high", None, ("openai", "o4-mini-high")),
        ("gemini-9", None, ("google", "gemini-9")),
        ("qwen2.5-coder:7b", "ollama", ("ollama", "qwen2.5-coder:7b")),
        ("meta-llama/Llama-3-8B", "openai", ("openai", "meta-llama/Llama-3-8B")),
        ("openai/gpt-5", "openai", ("openai", "gpt-5")),
    ],
)
def test_resolve_model(spec: str, provider: str | None, expected: tuple[str, str]) -> None:
    assert catalog.resolve_model(spec, provider) == expected


def test_unknown_bare_model_says_how_to_name_it() -> None:
    with pytest.raises(UsageError) as e:
        catalog.resolve_model("qwen3-coder")
    assert "openai/qwen3-coder" in e.value.one_line()


def test_cost_to_the_cent() -> None:
    u = Usage(input_tokens=1_000_000, output_tokens=200_000, cache_read_tokens=2_000_000, cache_write_tokens=100_000)
    # 3.00 + 0.2*15 + 2*0.30 + 0.1*3.75 = 6.975
    assert catalog.cost_usd("claude-sonnet-4-5-20250929", u) == pytest.approx(6.975)
    assert catalog.cost_usd("anthropic/claude-sonnet-4-5", u) == pytest.approx(6.975)
    # gpt-5-mini: 0.25 + 0.2*2 + 2*0.025 + 0.1*0.25
    assert catalog.cost_usd("gpt-5-mini", u) == pytest.approx(0.725)
    assert catalog.cost_usd("my-local-model", u) == 0.0
    assert catalog.cost_usd("claude-sonnet-4-5", u, provider="ollama") == 0.0


def test_overrides_merge_and_add() -> None:
    over = {"claude-sonnet-4-5": {"input": 1.0}, "my-model": {"provider": "openai", "context": 32768,
                                                               "output": 2.0, "aliases": ["mine"]}}
    u = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert catalog.cost_usd("claude-sonnet-4-5", u, over) == pytest.approx(16.0)
    assert catalog.cost_usd("mine", u, over) == pytest.approx(2.0)
    assert catalog.context_window("my-model", over) == 32768
    assert catalog.resolve_model("my-model", overrides=over) == ("openai", "my-model")
    assert catalog.cost_usd("claude-sonnet-4-5", u) == pytest.approx(18.0)  # base table untouched


def test_catalog_entries_are_complete() -> None:
    entries = catalog.models()
    assert {m.provider for m in entries} == {"anthropic", "openai", "google"}
    for m in entries:
        assert m.context_window and m.input > 0 and m.output > 0 and m.cache_read > 0, m
    assert catalog.context_window("gpt-4.1-mini-2025-04-14") == 1047576
    assert "sonnet" in catalog.model_names()
    assert next(m.name for m in catalog.models("google")) == "gemini-3-pro-preview"


def test_factory_table_and_lazy_import() -> None:
    assert set(PROVIDERS) >= {"anthropic", "openai"}
    assert provider_class("claude").__name__ == "AnthropicProvider"
    with pytest.raises(ConfigError, match="unknown provider"):
        provider_class("nope")
    p = make_provider(ProviderConfig("openai", api_key="k"), retries=False)
    assert p.name == "openai"
    code = ("import sys, agentcli.providers.factory, agentcli.providers.catalog as c; c.lookup('gpt-5'); "
            "from agentcli.providers.factory import make_provider; from agentcli.providers.base import "
            "ProviderConfig; make_provider(ProviderConfig('anthropic', api_key='k')); "
            "bad = [m for m in ('anthropic', 'openai', 'httpx', 'google.genai') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_provider_config_from_env_layers() -> None:
    env = {"ANTHROPIC_API_KEY": "env-key", "ANTHROPIC_BASE_URL": "http://h", "ANTHROPIC_AUTH_TOKEN": "tok"}
    c = provider_config_from_env("anthropic", {"max_retries": 1, "options": {"betas": ["x"]}},
                                 defaults={"api_key": "file-key", "request_timeout_s": 5.0,
                                           "options": {"prompt_caching": False}}, env=env)
    assert c.api_key == "env-key" and c.base_url == "http://h" and c.max_retries == 1
    assert c.request_timeout_s == 5.0
    assert c.options == {"prompt_caching": False, "auth_token": "tok", "betas": ["x"]}
    assert "env-key" not in repr(c)
    g = provider_config_from_env("gemini", env={"GOOGLE_API_KEY": "g"})
    assert g.name == "google" and g.api_key == "g"
    with pytest.raises(ConfigError):
        provider_config_from_env("openai", {"bogus": 1}, env={})
