"""A local server whose chat template drops the tools (SmolLM2's): the prompt token count it reports shows it, and
`agentcli -p` says so once, as a typed notice in the event stream. Run as the real `agentcli` against the fake
OpenAI-compatible server, which reports the usage each scripted reply names."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentcli.assembly.toolsseen import judge
from agentcli.providers import probe
from tests.cli.helpers import Run, agentcli
from tests.fakes.script import Reply, Usage
from tests.fakes.server import FakeLLM

DROPPED = "tools_dropped"


def run(fake: FakeLLM, cwd: Path, *extra: str) -> Run:
    return agentcli(["-p", "hi", "--base-url", fake.openai_url, "--model", "local-model", "--output-format",
                     "stream-json", "--verbose", *extra], cwd, {"AGENTCLI_HOME": os.environ["AGENTCLI_HOME"]})


def notices(r: Run) -> list[dict[str, Any]]:
    assert r.status == 0, r.stderr
    return [x for x in r.lines() if x.get("subtype") == "notice"]


def test_a_prompt_count_without_the_tools_is_said_once(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """14 tool definitions (~3,000 tokens) went out; the server counted 250 tokens: the tools were not there."""
    fake_llm.push(Reply(text="hello", usage=Usage(input_tokens=200, cache_read_tokens=50, output_tokens=2)),
                  Reply(text="again", usage=Usage(input_tokens=250, output_tokens=2)))
    first = [n for n in notices(run(fake_llm, tmp_path)) if n.get("code") == DROPPED]
    assert len(fake_llm.requests[0].body["tools"]) >= 10
    assert len(first) == 1 and first[0]["level"] == "warning", first
    assert "prompt counted 250 tokens" in first[0]["text"] and "Qwen" in first[0]["text"]
    again = notices(run(fake_llm, tmp_path))
    assert not [n for n in again if n.get("code") == DROPPED or "chat template" in n["text"]], again
    assert len(fake_llm.requests) == 2  # no probe requests: the estimate decided


def test_text_output_says_it_on_stderr(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="hello", usage=Usage(input_tokens=120, output_tokens=2)))
    r = agentcli(["-p", "hi", "--base-url", fake_llm.openai_url, "--model", "local-model"], tmp_path,
                 {"AGENTCLI_HOME": os.environ["AGENTCLI_HOME"]})
    assert r.status == 0 and r.stdout == "hello\n", r.stderr
    assert "chat template dropped the tools" in r.stderr


def test_a_prompt_count_with_the_tools_says_nothing(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="hello", usage=Usage(input_tokens=4200, output_tokens=2)))
    assert not [n for n in notices(run(fake_llm, tmp_path)) if n.get("code") == DROPPED]
    found = probe.cached(fake_llm.openai_url, "local-model")
    assert found is not None and found.tools_in_prompt is True and found.tool_calling != "none"


def test_when_the_estimate_cannot_tell_a_probe_with_and_without_a_tool_decides(tmp_path: Path,
                                                                                fake_llm: FakeLLM) -> None:
    """A long system prompt outweighs the tools: the count alone proves nothing, so the same one-word request is
    sent with and without a tool; equal prompt counts mean the template dropped it."""
    long_prompt = " ".join(f"rule{i} is to be followed." for i in range(2000))
    fake_llm.push(Reply(text="hello", usage=Usage(input_tokens=9000, output_tokens=2)),
                  Reply(text="x", usage=Usage(input_tokens=12, output_tokens=1)),
                  Reply(text="x", usage=Usage(input_tokens=12, output_tokens=1)))
    found = [n for n in notices(run(fake_llm, tmp_path, "--system-prompt", long_prompt)) if n.get("code") == DROPPED]
    assert len(found) == 1, found
    probes = [r.body for r in fake_llm.requests[1:]]
    assert [("tools" in b, b["max_tokens"], b["stream"]) for b in probes] == [(False, 1, False), (True, 1, False)]
    assert json.dumps(probes[1]["tools"]).count("get_time") == 1


def test_a_server_that_told_already_is_not_checked_again(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """llama.cpp's /props said so at first use: that warning stands, the count adds no second one."""
    fake_llm.get_routes["/props"] = {"chat_template_caps": {"supports_tools": False},
                                     "default_generation_settings": {"n_ctx": 8192}}
    fake_llm.push(Reply(text="hello", usage=Usage(input_tokens=100, output_tokens=2)))
    said = [n["text"] for n in notices(run(fake_llm, tmp_path)) if "chat template" in n["text"]]
    assert len(said) == 1 and "drops them" in said[0], said


def test_the_verdict_rule() -> None:
    assert judge(230, 200, 3000) is False  # the conversation alone
    assert judge(3300, 200, 3000) is True
    assert judge(2400, 200, 3000) is True  # a tokenizer counting 25 % fewer than ours
    assert judge(300, 200, 3000) is False  # one counting 50 % more
    assert judge(900, 600, 1000) is None  # tools outweighed: undecided
