"""A small local server (llama.cpp with a 4096-token context) whose chat template drops the tools: the tool
definitions the requests carry never reach its prompt, so the context meter must not count them, or every turn
would look past the compaction threshold (80 % of 4096) and be compacted first. The real `agentcli -p` against
the fake OpenAI-compatible server, which answers /props as llama.cpp does and reports each reply's prompt tokens
in its usage as llama.cpp would (the conversation alone, no tools)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentcli.assembly.toolsseen import DROPPED_CODE
from agentcli.core.context import TOOLS_DROPPED
from tests.cli.helpers import Run, agentcli, git_repo
from tests.fakes.script import Reply, ToolCall, Usage
from tests.fakes.server import FakeLLM


def run(fake: FakeLLM, cwd: Path, *extra: str) -> list[dict[str, Any]]:
    r: Run = agentcli(["--base-url", fake.openai_url, "--model", "local-model", "--output-format", "stream-json",
                       "--verbose", *extra], cwd, {"AGENTCLI_HOME": os.environ["AGENTCLI_HOME"]})
    assert r.status == 0, r.stderr
    return r.lines()


def turns(fake: FakeLLM) -> list[Any]:
    """The model requests (not the first-use probe of /props and /apply-template)."""
    return [r for r in fake.requests if r.path.endswith("/chat/completions")]


def compactions(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in lines if "compact" in json.dumps(x).lower()]


def test_tools_a_template_drops_are_not_counted_so_a_small_context_is_not_compacted_every_turn(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.txt": "alpha\n"})
    fake_llm.get_routes["/props"] = {"default_generation_settings": {"n_ctx": 4096}}
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})], usage=Usage(input_tokens=250, output_tokens=9)),
        Reply(text="It says alpha.", usage=Usage(input_tokens=290, output_tokens=4)),
    )
    first = run(fake_llm, proj, "-p", "what does a.txt say?")
    assert [x for x in first if x.get("code") == TOOLS_DROPPED], "the prompt count shows the tools were dropped"
    assert "context window 4096 tokens" in json.dumps(first)
    sent = turns(fake_llm)
    assert len(json.dumps(sent[0].body["tools"])) > 4 * 3300  # the definitions alone pass the threshold (3,276)
    assert compactions(first) == []  # learned from the notice, within the run that saw it
    assert [r.body.get("stream") for r in sent] == [True, True]  # no summariser request
    session = next(x for x in first if x.get("type") == "result")["session_id"]

    fake_llm.push(Reply(text="Still alpha.", usage=Usage(input_tokens=330, output_tokens=3)))
    again = run(fake_llm, proj, "-p", "and now?", "--resume", session)
    assert compactions(again) == []  # known from the probe cache in a later run
    sent = turns(fake_llm)
    assert len(sent) == 3 and "tools" in sent[2].body
    assert next(x for x in again if x.get("type") == "result")["result"] == "Still alpha."


def test_the_notice_code_the_meter_listens_for_is_the_one_the_check_sends() -> None:
    assert DROPPED_CODE == TOOLS_DROPPED
