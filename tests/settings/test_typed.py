"""Settings are typed: a boolean means what it says, a value of the wrong type is a config error (exit 2, code
`config`) naming the key and where it came from, never coerced (issue 25: `bool("false")` turned telemetry and
prompt export on; `max_turns = 2.9` became 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.errors import ConfigError
from agentcli.settings.config import load_settings
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.telemetry.collector import Receiver

MARKER = "PROMPT-MARKER-4410"


def _run(tmp_path: Path, fake: FakeLLM, receiver: Receiver, settings: str, files: dict[str, str] | None = None,
         **env: str):  # type: ignore[no-untyped-def]
    proj = git_repo(tmp_path / "proj", files or {"a.py": "print('a')\n"})
    fake.push(Reply(text="done"))
    full_env = {**provider_env(fake, ANTHROPIC), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
                "OTEL_BSP_EXPORT_TIMEOUT": "30000", **env}
    return agentcli(["-p", f"hello {MARKER}", "--model", ANTHROPIC, "--settings", settings], proj, full_env)


@pytest.mark.parametrize("value", ["false", "no", "0", 0])
def test_a_string_or_number_for_telemetry_is_a_config_error_and_nothing_is_exported(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver, value: object
) -> None:
    run = _run(tmp_path, fake_llm, receiver, json.dumps({"telemetry": value, "telemetry_log_prompts": "no"}))
    assert run.status == 2, run.stderr
    assert "'telemetry'" in run.stderr and "--settings" in run.stderr and "[config]" in run.stderr
    assert "Traceback" not in run.stderr
    assert receiver.requests == [] and fake_llm.requests == []


def test_false_keeps_telemetry_off(tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver) -> None:
    run = _run(tmp_path, fake_llm, receiver, json.dumps({"telemetry": False, "telemetry_log_prompts": False}))
    assert run.status == 0, run.stderr
    assert "done" in run.stdout
    assert receiver.requests == []


def test_true_turns_it_on(tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver) -> None:
    run = _run(tmp_path, fake_llm, receiver, json.dumps({"telemetry": True}))
    assert run.status == 0, run.stderr
    assert receiver.requests  # the check above can fail: with `true` something is exported


def test_a_wrong_type_in_a_project_file_names_the_key_and_the_file(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    files = {"a.py": "", ".agentcli/settings.local.toml": "max_turns = 2.9\n"}
    run = _run(tmp_path, fake_llm, receiver, "{}", files)
    assert run.status == 2, run.stderr
    assert "'max_turns'" in run.stderr and "settings.local.toml" in run.stderr and "[config]" in run.stderr
    assert fake_llm.requests == []


@pytest.mark.parametrize(("text", "key"), [
    ('telemetry = "false"\n', "telemetry"),
    ("telemetry_log_prompts = 1\n", "telemetry_log_prompts"),
    ("max_turns = true\n", "max_turns"),
    ("max_tokens = -5\n", "max_tokens"),
    ('shell_env_keep = "PATH"\n', "shell_env_keep"),
    ("[model_overrides]\nsonnet = 3\n", "model_overrides"),
])
def test_every_wrong_type_in_the_user_config_is_refused(tmp_path: Path, text: str, key: str) -> None:
    config = Path(__import__("os").environ["AGENTCLI_HOME"]) / "config.toml"
    config.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, {})
    assert f"'{key}" in err.value.message and str(config) in err.value.message
    assert err.value.exit_status == 2 and err.value.code == "config"


@pytest.mark.parametrize(("value", "on"), [("1", True), ("true", True), ("YES", True), ("on", True),
                                           ("0", False), ("false", False), ("no", False), ("off", False),
                                           ("", False)])
def test_environment_booleans_read_as_claude_code_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, on: bool
) -> None:
    for var in ("AGENTCLI_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY"):
        monkeypatch.setenv(var, value)
        assert load_settings(tmp_path, {}).telemetry.enabled is on
        monkeypatch.delenv(var)


def test_an_environment_value_that_is_no_boolean_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_TELEMETRY", "maybe")
    with pytest.raises(ConfigError, match="CLAUDE_CODE_ENABLE_TELEMETRY"):
        load_settings(tmp_path, {})


def test_the_python_api_options_are_checked_as_files_are(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'max_turns'"):
        load_settings(tmp_path, {"max_turns": 2.9})
    assert load_settings(tmp_path, {"max_turns": 3}).session.max_turns == 3


def test_numbers_and_sections(tmp_path: Path) -> None:
    config = Path(__import__("os").environ["AGENTCLI_HOME"]) / "config.toml"
    config.write_text('max_budget_usd = 2\nsandbox_network = true\nmcp_grace_s = 0.5\n'
                      'shell_env_keep = ["PATH"]\nunknown_key = 1\n')
    settings = load_settings(tmp_path, {})
    assert settings.session.max_budget_usd == 2.0 and isinstance(settings.session.max_budget_usd, float)
    assert settings.sandbox.network is True and settings.sandbox.env_keep == ("PATH",)
    assert settings.mcp.grace_s == 0.5
    assert any("'unknown_key' ignored" in n for n in settings.notices)  # never silent


def test_an_unknown_key_is_one_notice_of_the_run_and_a_line_in_doctor(
    tmp_path: Path, fake_llm: FakeLLM, receiver: Receiver
) -> None:
    config = Path(__import__("os").environ["AGENTCLI_HOME"]) / "config.toml"
    config.write_text("max_turns = 3\ntelemetry_logprompts = true\n")
    run = _run(tmp_path, fake_llm, receiver, "{}")
    assert run.status == 0, run.stderr
    assert run.stderr.count("'telemetry_logprompts' ignored") == 1
    doctor = agentcli(["doctor"], tmp_path / "proj")
    assert f"user: {config} — read" in doctor.stdout and "keys taken: max_turns" in doctor.stdout
    assert "ignored: telemetry_logprompts (not an agentcli setting)" in doctor.stdout
