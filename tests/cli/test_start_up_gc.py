"""The `agentcli` process pauses the cyclic GC for its start-up (agentcli/__main__.py) and resumes it when
start-up is over: a `-p` run says when, at the first event of the model's reply."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from agentcli.cli.entry import start_up_done
from agentcli.headless import run_headless
from agentcli.settings.config import load_settings
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def test_start_up_done_resumes_the_gc_and_freezes_what_start_up_made() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        start_up_done()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if not was:
            gc.disable()


@pytest.mark.parametrize("replies", [[Reply(text="Done.")],
                                     [Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]), Reply("ok")]])
def test_headless_start_up_ends_once_when_the_reply_begins(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, replies: list[Reply]
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(*replies)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")
    settings = load_settings(tmp_path, {"model": "anthropic/claude-sonnet-4-5", "no_session_persistence": True,
                                        "permission_mode": "bypassPermissions"})
    seen: list[int] = []
    status = run_headless(settings, "go", on_ready=lambda: seen.append(len(fake_llm.requests)))
    assert status == 0
    assert seen == [1]  # once, when the first request had gone out (and the HTTP stack was loaded)


def test_headless_start_up_ends_with_a_run_that_gets_no_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens: the run fails
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")
    settings = load_settings(tmp_path, {"model": "anthropic/claude-sonnet-4-5", "no_session_persistence": True})
    seen: list[int] = []
    assert run_headless(settings, "go", on_ready=lambda: seen.append(1)) != 0
    assert seen == [1]
