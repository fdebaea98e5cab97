"""Provider and model selection (agentcli.assembly.selection) from flags, base URLs and environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.assembly.selection import choose, select
from agentcli.errors import ConfigError, UsageError
from tests.cli.helpers import agentcli
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM


@pytest.mark.parametrize(
    ("model", "provider", "base_url", "expected"),
    [
        ("anthropic/claude-sonnet-4-5", None, None, ("anthropic", "claude-sonnet-4-5")),
        ("openai/gpt-4.1", None, None, ("openai", "gpt-4.1")),
        ("gemini-2.5-pro", None, None, ("google", "gemini-2.5-pro")),
        ("openrouter/anthropic/claude-sonnet-4-5", None, None, ("openrouter", "anthropic/claude-sonnet-4-5")),
        ("qwen2.5-coder", None, "http://localhost:8080/v1", ("openai", "qwen2.5-coder")),
        (None, None, "https://api.anthropic.com", ("anthropic", None)),
        (None, None, "http://gpu-box:11434", ("ollama", None)),
        (None, "ollama", None, ("ollama", None)),
    ],
)
def test_choose(model: str | None, provider: str | None, base_url: str | None,
                expected: tuple[str, str | None]) -> None:
    assert choose(model, provider, base_url) == expected


def test_reasoning_models_use_the_responses_api_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-000000000")
    assert select("openai/o3", None, None, {}, request_timeout_s=5, max_retries=0).config.name == "openai-responses"
    assert select("o3", "openai", None, {}, request_timeout_s=5, max_retries=0).config.name == "openai"
    assert select("openai/gpt-4.1", None, None, {}, request_timeout_s=5, max_retries=0).config.name == "openai"


def test_local_server_gets_text_tool_calls_and_no_fake_model_price(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    sel = select(None, None, None, {}, request_timeout_s=5, max_retries=0)
    assert sel.config.name == "openai" and sel.model == "default"
    assert sel.config.options["text_tool_calls"] is True


def test_unknown_model_without_any_provider_is_a_clear_error() -> None:
    with pytest.raises(UsageError) as err:
        select("mystery-model", None, None, {}, request_timeout_s=5, max_retries=0)
    assert "provider/model" in err.value.one_line()
    with pytest.raises(ConfigError):
        select(None, None, None, {}, request_timeout_s=5, max_retries=0)


def test_agentcli_host_picks_the_provider(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="via AGENTCLI_HOST"))
    run = agentcli(["-p", "hi", "--model", "gpt-4.1"], tmp_path, {"AGENTCLI_HOST": fake_llm.openai_url})
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "via AGENTCLI_HOST"
    assert fake_llm.requests[0].path.endswith("/chat/completions")


def test_a_single_configured_provider_table_is_enough(tmp_path: Path, fake_llm: FakeLLM) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f'[providers.openai]\nbase_url = "{fake_llm.openai_url}"\nmodel = "local-q"\n')
    fake_llm.push(Reply(text="configured"))
    run = agentcli(["-p", "hi"], tmp_path, {"AGENTCLI_HOME": str(home)})
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "configured" and fake_llm.requests[0].body["model"] == "local-q"
