"""Issue 12 acceptance 1–4: the real `agentcli -p` against the fake server over real HTTP, with a model
window the fake enforces the way real servers do (a request over it gets that provider's "too long" error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.compaction import SUMMARY_MARK
from agentcli.session import layout
from agentcli.session.store import open_session
from tests.cli.helpers import ANTHROPIC, agentcli, provider_env
from tests.compaction.helpers import (
    SUMMARY,
    TASK,
    big_project,
    is_summary_request,
    kinds,
    session_records,
    set_window,
    summariser,
)
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM, request_tokens

WINDOW = 16_000
CHATTY = "I looked at it closely and here is what I found about the structure of this module. " * 14


def forty_turns() -> list[Reply]:
    """40 turns: every other one reads a large file; every one says a paragraph (so pruning alone is not
    always enough and summaries happen too)."""
    out = []
    for i in range(39):
        calls = [ToolCall("Read", {"file_path": f"src/big_{i % 6}.py"})] if i % 2 == 0 else \
            [ToolCall("Glob", {"pattern": f"src/*_{i % 6}.py"})]
        out.append(Reply(text=f"turn-{i}-marker. {CHATTY}", tool_calls=calls))
    return [*out, Reply(text="big_3 defines parse_header")]


def run_p(project: Path, fake: FakeLLM, *extra: str, prompt: str = TASK) -> Any:
    return agentcli(["-p", prompt, "--model", ANTHROPIC, "--max-turns", "60", *extra], project,
                    provider_env(fake, ANTHROPIC), timeout=120)


def model_requests(fake: FakeLLM) -> list[dict[str, Any]]:
    return [r.body for r in fake.requests if not is_summary_request(r.body)]


def test_forty_turns_fit_the_window_and_record_compactions(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p")
    set_window(WINDOW)
    with FakeLLM(forty_turns(), responder=summariser, max_input_tokens=WINDOW) as fake:
        run = run_p(project, fake, "--output-format", "stream-json")
        assert run.status == 0, run.stderr
        assert fake.too_long == []
        assert max(request_tokens(r.body) for r in fake.requests) <= WINDOW
        assert len(model_requests(fake)) == 40
        assert fake.violations == []
    lines = run.lines()
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    boundaries = [ln for ln in lines if ln.get("subtype") == "compact_boundary"]
    assert boundaries
    for b in boundaries:
        meta = b["compact_metadata"]
        assert meta["trigger"] == "auto" and meta["pre_tokens"] > WINDOW * 0.8 > meta["post_tokens"] > 0
        assert b["session_id"] == lines[0]["session_id"]
    phases = {p for b in boundaries for p in b["compact_metadata"]["phases"]}
    assert {"prune", "summarise"} <= phases
    records = kinds(session_records(project), "compaction")
    assert len(records) == len(boundaries)
    assert all(r["data"]["messages"] and r["data"]["post_tokens"] < r["data"]["pre_tokens"] for r in records)


def test_after_compaction_the_task_todos_and_memory_survive(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p")
    (project / "AGENTS.md").write_text("Always run the linter. MEMORY-MARKER-91c2\n")
    set_window(WINDOW)
    todos = [{"content": "Find parse_header", "status": "in_progress", "activeForm": "Finding parse_header"},
             {"content": "Explain it TODO-MARKER-5d1e", "status": "pending", "activeForm": "Explaining it"}]
    script = [Reply(text="Planning.", tool_calls=[ToolCall("TodoWrite", {"todos": todos})]), *forty_turns()[:20]]
    with FakeLLM([*script, Reply(text="done")], responder=summariser, max_input_tokens=WINDOW) as fake:
        run = run_p(project, fake, "--preset", "coding", "--output-format", "stream-json")
        assert run.status == 0, run.stderr
        bodies = [r.body for r in fake.requests]
    todo_lines = [ln for ln in run.lines() if ln.get("subtype") == "todos"]
    assert todo_lines and todo_lines[0]["todos"] == todos
    summaries = [i for i, b in enumerate(bodies) if is_summary_request(b)]
    assert summaries
    after = bodies[summaries[0] + 1]  # the first model request after a summarising compaction
    text = json.dumps(after["messages"])
    assert SUMMARY_MARK in text and json.dumps(SUMMARY)[1:-1] in text
    assert json.dumps(TASK)[1:-1] in text  # the first user message, verbatim
    assert "TODO-MARKER-5d1e" in text and "[~] Find parse_header" in text
    assert "MEMORY-MARKER-91c2" in json.dumps(after["system"])
    assert "turn-0-marker" not in text  # what the summary replaced is gone


WIRES = {
    "anthropic": (ANTHROPIC, lambda f: provider_env(f, ANTHROPIC)),
    "openai": ("openai/gpt-4.1", lambda f: provider_env(f, "openai/gpt-4.1")),
    "responses": ("openai-responses/o3", lambda f: provider_env(f, "openai/o3")),
    "gemini": ("google/gemini-2.5-pro", lambda f: {"GOOGLE_GEMINI_BASE_URL": f.url, "GEMINI_API_KEY": "AIza-test-00"}),
    "llamacpp": ("llamacpp/default", lambda f: {"LLAMACPP_BASE_URL": f.openai_url}),
}


def _overflow_script(wire: str, second_overflow: bool) -> list[Reply]:
    from tests.fakes.script import Fault

    first = Reply(text="Reading.", tool_calls=[ToolCall("Read", {"file_path": "src/big_0.py"})])
    too_long = Reply(fault=Fault.too_long(wire))
    return [first, too_long, too_long if second_overflow else Reply(text="all done")]


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_prompt_too_long_compacts_once_and_retries_once(tmp_path: Path, wire: str) -> None:
    project = big_project(tmp_path / "p", files=1)
    model, env = WIRES[wire]
    with FakeLLM(_overflow_script(wire, False), responder=summariser) as fake:
        run = agentcli(["-p", TASK, "--model", model, "--output-format", "stream-json"], project, env(fake))
        assert run.status == 0, run.stderr
        summaries = [r for r in fake.requests if is_summary_request(r.body)]
        assert len(summaries) == 1 and len(fake.requests) == 4
    boundaries = [ln for ln in run.lines() if ln.get("subtype") == "compact_boundary"]
    assert len(boundaries) == 1 and boundaries[0]["compact_metadata"]["reason"] == "overflow"
    assert run.lines()[-1]["result"] == "all done"


@pytest.mark.parametrize("wire", ["anthropic", "gemini"])
def test_a_second_overflow_ends_the_run_with_a_clear_error(tmp_path: Path, wire: str) -> None:
    project = big_project(tmp_path / "p", files=1)
    model, env = WIRES[wire]
    with FakeLLM(_overflow_script(wire, True), responder=summariser) as fake:
        run = agentcli(["-p", TASK, "--model", model, "--output-format", "json"], project, env(fake))
        assert len(fake.requests) == 4  # the turn, its summary, one retry: no loop
    assert run.status == 1
    result = run.json()
    assert result["is_error"] and result["error"]["code"] == "context_overflow"
    assert "still too long" in result["error"]["message"] and "after compacting" in result["error"]["message"]
    assert "[context_overflow]" in run.stderr and "Traceback" not in run.stderr


def test_continue_sends_summary_and_tail_and_loads_without_a_model_call(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p")
    set_window(WINDOW)
    script = [*forty_turns()[:20], Reply(text="big_3 defines parse_header")]  # enough for summarising compactions
    with FakeLLM(script, responder=summariser, max_input_tokens=WINDOW) as fake:
        assert run_p(project, fake).status == 0
        assert any(is_summary_request(r.body) for r in fake.requests)
    (sid,) = [p.stem for p in layout.sessions_dir(project).glob("*.jsonl")]
    opened = open_session(project, continue_=True, no_persistence=True, checkpoints=False)  # no server here
    assert opened.resumed_from == sid and opened.history[0].text.startswith(SUMMARY_MARK)
    with FakeLLM([Reply(text="continuing")], responder=summariser) as fake:
        run = run_p(project, fake, "-c", prompt="and now?")
        assert run.status == 0, run.stderr
        assert len(fake.requests) == 1 and not is_summary_request(fake.requests[0].body)
        text = json.dumps(fake.requests[0].body["messages"])
    assert SUMMARY_MARK in text and "and now?" in text and "big_3 defines parse_header" in text
    assert "turn-0-marker" not in text and "turn-1-marker" not in text
