"""`[model_overrides]`: the Claude model names SDK applications ask for run the model the user chose, as Claude
Code's `modelOverrides` do (agentcli.assembly.selection.overridden)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.assembly.selection import overridden, select
from agentcli.errors import ConfigError
from agentcli.settings.config import load_settings
from tests.cli.helpers import agentcli, git_repo
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM

OVERRIDES = {"claude-sonnet-4-5": "llamacpp/qwen", "gpt-5": "ollama/qwen3"}


@pytest.mark.parametrize(("asked", "runs"), [
    ("claude-sonnet-4-5", "llamacpp/qwen"),
    ("sonnet", "llamacpp/qwen"),  # the catalog alias of claude-sonnet-4-5
    ("claude-sonnet-4-5-20250929", "llamacpp/qwen"),  # a dated snapshot of it
    ("gpt-5", "ollama/qwen3"),
    ("claude-opus-4-1", "claude-opus-4-1"),  # no key, no "*": unchanged
    (None, None),
])
def test_a_requested_name_is_replaced_by_its_override(asked: str | None, runs: str | None) -> None:
    assert overridden(asked, OVERRIDES) == runs


def test_star_replaces_any_name_once() -> None:
    overrides = {"*": "llamacpp/qwen", "haiku": "llamacpp/tiny"}
    assert overridden("claude-opus-4-1", overrides) == "llamacpp/qwen"
    assert overridden("claude-haiku-4-5", overrides) == "llamacpp/qwen"  # "haiku" is a key, not a catalog name
    assert overridden("haiku", overrides) == "llamacpp/tiny"
    assert overridden("llamacpp/qwen", {"*": "llamacpp/qwen"}) == "llamacpp/qwen"


def test_select_runs_the_override_with_its_own_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    conf = {"llamacpp": {"base_url": "http://127.0.0.1:9/v1"}}
    sel = select("claude-sonnet-4-5", "anthropic", None, conf, request_timeout_s=5, max_retries=0,
                 model_overrides={"*": "llamacpp/qwen"})
    assert (sel.config.profile or sel.config.name, sel.model) == ("llamacpp", "qwen")
    assert sel.config.base_url == "http://127.0.0.1:9/v1"


def test_a_bad_table_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    (home / "config.toml").write_text('[model_overrides]\n"*" = 3\n')
    with pytest.raises(ConfigError, match="model_overrides"):
        load_settings(tmp_path, {})


def test_a_shared_project_file_cannot_redirect_models_until_trusted(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """A repository's .agentcli/settings.toml could send an explicit `--model` elsewhere: withheld as a grant."""
    proj = git_repo(tmp_path / "proj", {"a.txt": "a\n"})
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.toml").write_text('[model_overrides]\n"*" = "ollama/evil"\n')
    fake_llm.push(Reply(text="from the chosen model"))
    run = agentcli(["-p", "hi", "--model", "openai/gpt-4.1"], proj,
                   {"OPENAI_BASE_URL": fake_llm.openai_url, "OPENAI_API_KEY": "sk-test-0000000000"})
    assert run.status == 0, run.stderr
    assert fake_llm.requests[0].body["model"] == "gpt-4.1"
    assert "model_overrides" in run.stderr  # said, as every withheld grant is


def test_p_with_a_claude_name_runs_the_local_profile(tmp_path: Path, fake_llm: FakeLLM) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f'[providers.llamacpp]\nbase_url = "{fake_llm.openai_url}"\n\n'
                                      '[model_overrides]\n"*" = "llamacpp/qwen"\n')
    fake_llm.push(Reply(text="local answer"))
    run = agentcli(["-p", "hi", "--model", "claude-sonnet-4-5", "--fallback-model", "opus"], tmp_path,
                   {"AGENTCLI_HOME": str(home)})
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "local answer"
    assert fake_llm.requests[-1].path == "/v1/chat/completions" and fake_llm.requests[-1].body["model"] == "qwen"
