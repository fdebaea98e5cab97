"""WebSearch with the providers' own server-side search: each adapter sends its native search tool instead of
the client tool, and the sources come back from each provider's real response shape (checked against the
official SDK's types where they have them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import agentcli, git_repo
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM

SOURCES = (("Parser docs", "https://docs.example.org/parser"), ("Errors", "https://docs.example.org/errors"))


def env_for(fake: FakeLLM, model: str) -> dict[str, str]:
    if model.startswith("anthropic/"):
        return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-0000000000"}
    if model.startswith("google/"):
        return {"GOOGLE_GEMINI_BASE_URL": fake.url, "GEMINI_API_KEY": "gemini-test-000000"}
    return {"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-0000000000"}


def native_tool(model: str, body: dict[str, Any]) -> list[Any]:
    tools = body.get("tools") or []
    if model.startswith("anthropic/"):
        from anthropic.types import WebSearchTool20250305Param

        found = [t for t in tools if t.get("type") == "web_search_20250305"]
        assert all(set(WebSearchTool20250305Param.__required_keys__) <= set(t) for t in found)
        assert not any(t.get("name") == "WebSearch" for t in tools)
        return found
    if model.startswith("openai-responses/"):
        from openai.types.responses import WebSearchToolParam

        found = [t for t in tools if t.get("type") == "web_search"]
        assert all(set(WebSearchToolParam.__required_keys__) <= set(t) for t in found)
        assert not any(t.get("name") == "WebSearch" for t in tools)
        return found
    from google.genai import types

    parsed = [types.Tool.model_validate(t) for t in tools]
    assert not any(d.name == "WebSearch" for t in parsed for d in (t.function_declarations or []))
    return [t for t in parsed if t.google_search is not None]


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-5", "openai-responses/gpt-5",
                                   "google/gemini-2.5-pro"])
def test_native_search_tool_and_citations(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(text="Parsers raise ParseError [1].", search_query="python parser errors",
                        search_sources=SOURCES))
    run = agentcli(["-p", "how do parser errors work?", "--model", model, "--output-format", "stream-json"],
                   proj, env_for(fake_llm, model))
    assert run.status == 0, run.stderr
    assert fake_llm.violations == []
    assert len(native_tool(model, fake_llm.requests[0].body)) == 1
    (line,) = [x for x in run.lines() if x.get("subtype") == "web_search"]
    assert line["queries"] == ["python parser errors"]
    assert [(s["title"], s["url"]) for s in line["sources"]] == list(SOURCES)
    assert run.lines()[-1]["result"] == "Parsers raise ParseError [1]."


def test_other_models_keep_the_client_tool(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "hi", "--model", "openai/gpt-4.1"], proj, env_for(fake_llm, "openai/gpt-4.1"))
    assert run.status == 0, run.stderr
    names = [t["function"]["name"] for t in fake_llm.requests[0].body["tools"]]
    assert "WebSearch" in names and json.dumps(fake_llm.requests[0].body).count("web_search") == 0


def test_the_repl_line_names_the_search_and_numbers_the_sources() -> None:
    from agentcli.ui.toolfmt import web_sources

    text = web_sources("google", ("parser errors",), SOURCES)
    assert text.splitlines() == ["  ⌕ web search (google's own): “parser errors”",
                                 "    [1] Parser docs — https://docs.example.org/parser",
                                 "    [2] Errors — https://docs.example.org/errors"]
