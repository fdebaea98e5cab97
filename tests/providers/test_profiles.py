"""OpenAI-compatible host profiles: data file, overrides, env resolution, URL-based inference."""

from __future__ import annotations

import pytest

from agentcli.errors import AuthError, ConfigError
from agentcli.llm.messages import Message
from agentcli.providers.base import ModelRequest
from agentcli.providers.factory import make_provider
from agentcli.providers.profiles import (
    Profile,
    get_profile,
    infer_provider,
    load_profiles,
    normalize_host,
    require_profile,
)
from tests.fakes import FakeLLM, Reply
from tests.providers.adapter_cases import TOOL_SPECS, stream_once


def prof(name: str) -> Profile:
    return require_profile(name)

EXPECTED = {
    "llamacpp", "vllm", "lmstudio", "ollama-openai", "openrouter", "deepseek", "groq", "together", "mistral",
    "zai", "minimax",
}  # fmt: skip


def test_every_host_has_a_profile_with_the_basics() -> None:
    profiles = load_profiles()
    assert set(profiles) >= EXPECTED
    for p in profiles.values():
        assert p.base_url.startswith(("http://", "https://")), p.name
        assert p.max_tokens_field in ("max_tokens", "max_completion_tokens")
        assert p.local or (p.key_required and p.api_key_env), p.name
        assert p.tool_call_id in ("any", "alnum9")


def test_options_carry_the_quirks() -> None:
    opts = prof("mistral").options
    assert opts["include_usage"] is False
    assert opts["tool_call_id"] == "alnum9"
    assert prof("deepseek").options["reasoning_fields"] == ["reasoning_content"]
    assert prof("deepseek").options["key_env"] == "DEEPSEEK_API_KEY"
    assert prof("llamacpp").options["require_key"] is False
    assert prof("groq").options["max_tokens_field"] == "max_completion_tokens"
    assert prof("llamacpp").options["text_tool_calls"] is True


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(AuthError) as err:
        prof("groq").provider_config({})
    assert "GROQ_API_KEY" in err.value.one_line()


def test_provider_config_from_env() -> None:
    cfg = prof("zai").provider_config({"ZAI_API_KEY": "k-123456789"})
    assert cfg.api_key == "k-123456789"
    assert cfg.base_url == "https://api.z.ai/api/paas/v4"
    assert cfg.profile == "zai"
    assert cfg.name == "openai"
    assert "k-123456789" not in repr(cfg)
    local = prof("llamacpp").provider_config({})
    assert local.api_key is None


def test_ollama_host_env_gets_the_v1_path() -> None:
    p = prof("ollama-openai")
    assert p.resolve_base_url({"OLLAMA_HOST": "0.0.0.0:11500"}) == "http://127.0.0.1:11500/v1"
    assert p.resolve_base_url({"OLLAMA_HOST": "https://ollama.example/"}) == "https://ollama.example/v1"
    assert p.resolve_base_url({"OLLAMA_HOST": "http://h:1/custom"}) == "http://h:1/custom"
    assert p.resolve_base_url({}) == "http://127.0.0.1:11434/v1"


def test_user_overrides_and_new_hosts() -> None:
    profiles = load_profiles(
        {
            "vllm": {"base_url": "http://gpu:9000/v1", "default_model": "qwen", "api_key": "ignored"},
            "myhost": {"base_url": "http://10.0.0.2:5000/v1", "key_required": False, "local": True},
            "anthropic": {"api_key": "x"},
        }
    )
    assert profiles["vllm"].base_url == "http://gpu:9000/v1"
    assert profiles["vllm"].default_model == "qwen"
    assert profiles["vllm"].reasoning_field == "reasoning_content"
    assert profiles["myhost"].label == "myhost"
    assert "anthropic" not in profiles


def test_unknown_profile_lists_the_choices() -> None:
    assert get_profile("nope") is None
    with pytest.raises(ConfigError) as err:
        require_profile("nope")
    assert "llamacpp" in err.value.one_line()


@pytest.mark.parametrize(
    ("url", "provider"),
    [
        ("https://api.anthropic.com", "anthropic"),
        ("http://127.0.0.1:8080/v1", "openai"),
        ("http://127.0.0.1:8080/v1/", "openai"),
        ("https://api.z.ai/api/paas/v4", "openai"),
        ("http://localhost:11434", "ollama"),
        ("gpu-box:11434", "ollama"),
        ("https://generativelanguage.googleapis.com", "google"),
    ],
)
def test_infer_provider_from_url(url: str, provider: str) -> None:
    assert infer_provider(url) == provider


def test_normalize_host() -> None:
    assert normalize_host("localhost") == "http://localhost"
    assert normalize_host("[::]:11434") == "http://127.0.0.1:11434"


def test_a_local_profile_drives_the_chat_adapter_with_text_calls(fake_llm: FakeLLM) -> None:
    text = '<think>plan</think>Sure.\n<tool_call>{"name": "Read", "arguments": {"file_path": "a"}}</tool_call>'
    fake_llm.push(Reply(text=text, chunk_size=3))
    cfg = prof("llamacpp").provider_config({}, base_url=fake_llm.openai_url, max_retries=0)
    norm, err = stream_once(make_provider(cfg), ModelRequest("default", "", (Message.user("hi"),), TOOL_SPECS))
    assert err is None
    assert norm[:3] == [("thinking", "plan"), ("text", "Sure.\n"), ("call", "Read", {"file_path": "a"})]
    assert norm[-1] == ("stop", "tool_use")
    body = fake_llm.requests[0].body
    assert "max_tokens" in body and body["stream_options"] == {"include_usage": True}


def test_a_hosted_profile_sends_its_quirks(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    cfg = prof("mistral").provider_config({"MISTRAL_API_KEY": "mk-123456789"}, base_url=fake_llm.openai_url)
    norm, err = stream_once(make_provider(cfg), ModelRequest("devstral", "", (Message.user("hi"),)))
    assert err is None and norm[0] == ("text", "ok")
    req = fake_llm.requests[0]
    assert "stream_options" not in req.body and req.headers["authorization"] == "Bearer mk-123456789"
