"""Where the window comes from (setting, provider table, local server, catalog), `compact_model`, nested
memory files during a run, and /context agreeing with the status line."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from agentcli.assembly import selection
from agentcli.assembly.runtime import context_window_fn
from agentcli.errors import ConfigError
from agentcli.settings.config import Settings, load_settings
from agentcli.settings.sections import ModelSettings
from tests.cli.helpers import ANTHROPIC, agentcli, provider_env
from tests.compaction.helpers import TASK, big_project, is_summary_request, summariser
from tests.fakes.ollama import FakeOllama
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.ui.scripted import ScriptedProvider, make_repl, text_reply


def _sel(model: str, providers: dict[str, dict[str, object]] | None = None) -> selection.Selection:
    return selection.select(model, None, None, providers or {}, request_timeout_s=5, max_retries=0)


def test_window_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000")
    sel = _sel(ANTHROPIC)
    assert context_window_fn({}, Settings(cwd=tmp_path), sel)(sel.model) == 200_000  # the catalog
    window = Settings(cwd=tmp_path, model=ModelSettings(context_window=50_000))
    assert context_window_fn({}, window, sel)(sel.model) == 50_000
    conf = {"anthropic": {"model_context_window": 30_000}}
    settings = Settings(cwd=tmp_path, model=ModelSettings(context_window=50_000, providers=conf))
    assert context_window_fn({}, settings, sel)(sel.model) == 30_000  # the provider's own table wins
    with pytest.raises(ConfigError, match="model_context_window"):
        context_window_fn({}, Settings(cwd=tmp_path, model=ModelSettings(context_window=12)), sel)
    ollama = _sel("ollama/qwen3", {"ollama": {"options": {"num_ctx": 12_288}}})
    assert context_window_fn({}, Settings(cwd=tmp_path), ollama)("qwen3") == 12_288  # what Ollama really uses


def test_settings_keys_load_from_config(tmp_path: Path) -> None:
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('model_context_window = 64000\nmodel_auto_compact_token_limit = 40000\n'
                                      'compact_model = "anthropic/claude-haiku-4-5"\n')
    s = load_settings(tmp_path, {})
    assert (s.model.context_window, s.model.auto_compact_token_limit, s.model.compact_model) == \
        (64_000, 40_000, "anthropic/claude-haiku-4-5")


def test_ollama_window_reported_by_the_server_drives_compaction(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", files=4, lines=160)
    script = [Reply(text=f"reading {i}", tool_calls=[ToolCall("Read", {"file_path": f"src/big_{i % 4}.py"})])
              for i in range(8)]
    with FakeOllama([*script, Reply(text="done")], models={"llama-fake": 8192}, responder=summariser) as fake:
        run = agentcli(["-p", TASK, "--model", "ollama/llama-fake", "--output-format", "stream-json"], project,
                       {"OLLAMA_HOST": fake.url})
    assert run.status == 0, run.stderr
    boundaries = [ln for ln in run.lines() if ln.get("subtype") == "compact_boundary"]
    assert boundaries and all(b["compact_metadata"]["post_tokens"] < 8192 for b in boundaries)
    assert run.lines()[-1]["modelUsage"]["llama-fake"]["contextWindow"] == 8192


def test_compact_model_writes_the_summary_and_is_counted(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", files=1)
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('compact_model = "claude-haiku-4-5"\n')
    script = [Reply(text="Reading.", tool_calls=[ToolCall("Read", {"file_path": "src/big_0.py"})]),
              Reply(fault=Fault.too_long("anthropic")), Reply(text="done")]
    with FakeLLM(script, responder=summariser) as fake:
        run = agentcli(["-p", TASK, "--model", ANTHROPIC, "--output-format", "json"], project,
                       provider_env(fake, ANTHROPIC))
        models = [(is_summary_request(r.body), r.body["model"]) for r in fake.requests]
    assert run.status == 0, run.stderr
    assert (True, "claude-haiku-4-5") in models and (False, "claude-sonnet-4-5") in models
    usage = run.json()["modelUsage"]
    assert set(usage) == {"claude-sonnet-4-5", "claude-haiku-4-5"} and usage["claude-haiku-4-5"]["costUSD"] > 0
    from agentcli.session.ledger import entries

    summary_costs = [e.cost_usd for e in entries() if e.model == "claude-haiku-4-5"]
    assert summary_costs == [pytest.approx(usage["claude-haiku-4-5"]["costUSD"])]  # in the usage ledger too


def test_nested_agents_md_reaches_the_model_when_the_agent_works_there(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", files=1)
    (project / "pkg").mkdir()
    (project / "pkg" / "AGENTS.md").write_text("NESTED-RULE-44: tabs in pkg/\n")
    (project / "pkg" / "mod.py").write_text("x = 1\n")
    script = [Reply(text="Reading.", tool_calls=[ToolCall("Read", {"file_path": "pkg/mod.py"})]),
              Reply(text="Again.", tool_calls=[ToolCall("Read", {"file_path": "pkg/mod.py"})]), Reply(text="ok")]
    with FakeLLM(script) as fake:
        run = agentcli(["-p", "look at pkg", "--model", ANTHROPIC], project, provider_env(fake, ANTHROPIC))
        bodies = [json.dumps(r.body) for r in fake.requests]
    assert run.status == 0, run.stderr
    assert "NESTED-RULE-44" not in bodies[0] and bodies[1].count("NESTED-RULE-44") == 1
    assert bodies[2].count("NESTED-RULE-44") == 1  # once, not at every visit


def test_context_report_agrees_with_the_status_line(tmp_path: Path) -> None:
    from agentcli.ui.actions import context_report

    repl, _out = make_repl(tmp_path, ScriptedProvider([text_reply("hello")]))
    asyncio.run(repl.submit("hi"))
    assert repl.agent is not None
    report = context_report(repl.agent)
    pct = repl.status.context_percent
    assert f"({pct}%)" in report.split("used", 1)[1].splitlines()[0]
    for kind in ("system prompt", "tools", "memory files", "messages", "tool results", "compacts at"):
        assert kind in report


def test_llamacpp_window_from_props_drives_compaction(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", files=4, lines=160)
    script = [Reply(text=f"reading {i}", tool_calls=[ToolCall("Read", {"file_path": f"src/big_{i % 4}.py"})])
              for i in range(8)]
    with FakeLLM([*script, Reply(text="done")], responder=summariser, max_input_tokens=8192) as fake:
        fake.n_ctx = 8192
        run = agentcli(["-p", TASK, "--model", "llamacpp/default", "--output-format", "stream-json"], project,
                       {"LLAMACPP_BASE_URL": fake.openai_url})
        assert fake.too_long == []
    assert run.status == 0, run.stderr
    assert [ln for ln in run.lines() if ln.get("subtype") == "compact_boundary"]
    assert run.lines()[-1]["modelUsage"]["default"]["contextWindow"] == 8192


def test_precompact_hook_runs_before_compaction(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", files=1)
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    seen = project / "precompact.json"  # inside the project: hooks run in the sandbox
    (home / "config.toml").write_text(f'[[hooks.PreCompact]]\nmatcher = "auto"\n[[hooks.PreCompact.hooks]]\n'
                                      f'type = "command"\ncommand = "cat > {seen}"\n')
    script = [Reply(text="Reading.", tool_calls=[ToolCall("Read", {"file_path": "src/big_0.py"})]),
              Reply(fault=Fault.too_long("anthropic")), Reply(text="done")]
    with FakeLLM(script, responder=summariser) as fake:
        run = agentcli(["-p", TASK, "--model", ANTHROPIC], project, provider_env(fake, ANTHROPIC))
    assert run.status == 0, run.stderr
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PreCompact" and payload["trigger"] == "auto"
