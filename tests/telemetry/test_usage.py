"""`agentcli usage`: the ledger read from real session files matches the runs' own result lines; the chart is
pinned by golden files at two widths."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from agentcli.commands.usage import render
from agentcli.session.ledger import Row
from tests.cli.helpers import ANTHROPIC, OPENAI, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall, Usage
from tests.fakes.server import FakeLLM

GOLDEN = Path(__file__).parent / "golden"


def test_usage_by_model_and_provider_matches_the_result_lines(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    big = Usage(input_tokens=120_000, output_tokens=3000, cache_read_tokens=5000)
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})], usage=big), Reply(text="one", usage=big),
                  Reply(text="two", usage=big), Reply(text="three"))
    results = []
    for model in (ANTHROPIC, ANTHROPIC, OPENAI):
        run = agentcli(["-p", "go", "--model", model, "--output-format", "json"], proj, provider_env(fake_llm, model))
        assert run.status == 0, run.stderr
        results.append((model, run.json()))
    out = agentcli(["usage", "--by", "model", "--json"], proj)
    assert out.status == 0, out.stderr
    rows = {r["key"]: r for r in json.loads(out.stdout)["rows"]}
    anthropic = [r for m, r in results if m == ANTHROPIC]
    assert rows["claude-sonnet-4-5"]["cost_usd"] == pytest.approx(sum(r["total_cost_usd"] for r in anthropic))
    assert rows["claude-sonnet-4-5"]["input_tokens"] == sum(r["usage"]["input_tokens"] for r in anthropic)
    assert rows["claude-sonnet-4-5"]["output_tokens"] == sum(r["usage"]["output_tokens"] for r in anthropic)
    assert rows["claude-sonnet-4-5"]["requests"] == 3
    assert rows["gpt-4.1"]["cost_usd"] == pytest.approx(results[2][1]["total_cost_usd"])
    total = json.loads(out.stdout)["total"]
    assert total["cost_usd"] == pytest.approx(sum(r["total_cost_usd"] for _, r in results), abs=1e-6)
    providers = {r["key"] for r in json.loads(agentcli(["usage", "--by", "provider", "--json"], proj).stdout)["rows"]}
    assert providers == {"anthropic", "openai"}
    table = agentcli(["usage", "--since", "7d"], proj, {"COLUMNS": "100"})
    assert table.status == 0 and "total" in table.stdout and "█" in table.stdout
    assert json.loads(agentcli(["usage", "--since", "2999-01-01", "--json"], proj).stdout)["rows"] == []
    bad = agentcli(["usage", "--since", "yesterday"], proj)
    assert bad.status == 2 and "[usage]" in bad.stderr


def test_local_models_count_tokens_at_zero_cost(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(text="local answer", usage=Usage(input_tokens=500, output_tokens=40)))
    home = Path(os.environ["AGENTCLI_HOME"])
    (home / "config.toml").write_text(f'[providers.llamacpp]\nbase_url = "{fake_llm.openai_url}"\n')
    run = agentcli(["-p", "go", "--model", "llamacpp/smollm"], proj)
    assert run.status == 0, run.stderr
    (row,) = json.loads(agentcli(["usage", "--by", "model", "--json"], proj).stdout)["rows"]
    assert row["key"] == "smollm" and row["input_tokens"] == 500 and row["cost_usd"] == 0


ROWS = [Row("2026-11-20", 14, 1_250_000, 41_000, 300_000, 0, 5.42), Row("2026-11-21", 3, 90_000, 2_000, 0, 0, 0.31),
        Row("2026-11-22", 27, 2_900_000, 88_000, 1_100_000, 20_000, 12.07)]


@pytest.mark.parametrize("width", [60, 120])
def test_chart_golden(width: int) -> None:
    total = Row("total")
    for r in ROWS:
        total.requests += r.requests
        total.input_tokens += r.input_tokens
        total.output_tokens += r.output_tokens
        total.cache_read_tokens += r.cache_read_tokens
        total.cache_write_tokens += r.cache_write_tokens
        total.cost_usd += r.cost_usd
    out = io.StringIO()
    render(ROWS, total, "day", out, width=width)
    golden = GOLDEN / f"usage_{width}.txt"
    if os.environ.get("AGENTCLI_UPDATE_GOLDEN"):
        golden.write_text(out.getvalue())
    assert out.getvalue() == golden.read_text()
