"""`agentcli -p` against hostile model output: a NUL byte in a path, and a reply the server breaks off (an
in-stream overloaded error) in the middle of a tool call. Both used to end the run (`internal error: ValueError:
embedded null byte`; `overloaded`); now the model reads a tool error, and the broken reply is asked for again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import ANTHROPIC, OPENAI, agentcli, git_repo, provider_env
from tests.cli.test_headless_e2e import tool_results
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM

ARGS = ["--output-format", "stream-json", "--verbose", "--max-turns", "5"]


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_nul_byte_in_a_path_is_a_tool_error(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    root = git_repo(tmp_path / "proj", {"a.txt": "alpha\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt\u0000../../etc/passwd"}),
                                    ToolCall("Glob", {"pattern": "*\u0000", "path": "\u0000"})]),
                  Reply(text="could not read it"))
    run = agentcli(["-p", "read a.txt", "--model", model, *ARGS], root, provider_env(fake_llm, model))
    assert run.status == 0, run.stderr
    result = run.lines()[-1]
    assert result["subtype"] == "success" and result["result"] == "could not read it"
    told = tool_results(fake_llm.requests)
    assert len(told) == 2 and all("NUL byte" in str(t["content"]) for t in told), told
    assert "internal error" not in run.stdout + run.stderr


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_a_reply_cut_inside_a_tool_call_is_retried(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    root = git_repo(tmp_path / "proj", {"a.txt": "alpha\n"})
    call = ToolCall("Read", {"file_path": "a.txt", "offset": 1, "limit": 2000})
    broken = Fault("stream_error", 529, "Overloaded", after_events=6)
    fake_llm.push(Reply(text="ok", tool_calls=[call], args_chunk_size=3, fault=broken),
                  Reply(text="ok", tool_calls=[call]), Reply(text="it says alpha"))
    run = agentcli(["-p", "read a.txt", "--model", model, *ARGS], root, provider_env(fake_llm, model))
    assert run.status == 0, run.stderr
    lines = run.lines()
    retries = [x for x in lines if x.get("subtype") == "api_retry"]
    assert len(retries) == 1 and retries[0]["discarded_partial"] is True
    assert lines[-1]["subtype"] == "success" and lines[-1]["result"] == "it says alpha"
    told = tool_results(fake_llm.requests)
    assert len(told) == 1 and "alpha" in str(told[0]["content"])  # the call ran once, from the whole reply
