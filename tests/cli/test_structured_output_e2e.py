"""`--json-schema` (the SDK's `output_format`): the final answer is validated JSON in `structured_output`. Real
`agentcli -p` against the fake LLM server over HTTP, both wire formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ANTHROPIC, OPENAI, Run, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

SCHEMA = {"type": "object", "properties": {"files": {"type": "integer"}, "summary": {"type": "string"}},
          "required": ["files", "summary"], "additionalProperties": False}
ANSWER = {"files": 2, "summary": "two python files"}


def run(fake: FakeLLM, proj: Path, schema: Any, model: str = ANTHROPIC, fmt: str = "json") -> Run:
    return agentcli(["-p", "count the files", "--model", model, "--output-format", fmt,
                     "--json-schema", schema if isinstance(schema, str) else json.dumps(schema)],
                    proj, provider_env(fake, model))


def tools_of(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name → input schema, in either wire format."""
    out = {}
    for t in body.get("tools", []):
        if "function" in t:
            out[t["function"]["name"]] = t["function"]["parameters"]
        elif "input_schema" in t:  # not a server tool (web search)
            out[t["name"]] = t["input_schema"]
    return out


def results_sent(body: dict[str, Any]) -> list[str]:
    """The tool results and user texts of the last request, in order, as text."""
    out: list[str] = []
    for m in body["messages"]:
        if m["role"] == "tool":
            out.append(str(m["content"]))
        elif m["role"] == "user" and isinstance(m["content"], list):
            out.extend(json.dumps(b) for b in m["content"])
        elif m["role"] == "user":
            out.append(str(m["content"]))
    return out


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "proj", {"a.py": "x = 1\n", "b.py": "y = 2\n"})


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_valid_answer_becomes_structured_output(proj: Path, fake_llm: FakeLLM, model: str) -> None:
    fake_llm.push(Reply(text="Looking.", tool_calls=[ToolCall("Glob", {"pattern": "*.py"})]),
                  Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]))
    result = run(fake_llm, proj, SCHEMA, model)
    assert result.status == 0, result.stderr
    out = result.json()
    assert out["subtype"] == "success" and out["structured_output"] == ANSWER and out["num_turns"] == 2
    offered = tools_of(fake_llm.requests[0].body)
    assert offered["StructuredOutput"]["properties"] == SCHEMA["properties"] and "Glob" in offered
    assert len(fake_llm.requests) == 2  # the run ends once the answer is given


def test_stream_json_result_line_carries_it(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]))
    result = run(fake_llm, proj, SCHEMA, fmt="stream-json")
    assert result.status == 0
    assert result.lines()[-1]["structured_output"] == ANSWER


def test_invalid_answer_is_returned_to_the_model(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(tool_calls=[ToolCall("StructuredOutput", {"files": "two", "summary": "x"})]),
                  Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]))
    result = run(fake_llm, proj, SCHEMA)
    assert result.status == 0 and result.json()["structured_output"] == ANSWER
    told = results_sent(fake_llm.requests[1].body)[-1]
    assert "files" in told and "integer" in told and '"is_error": true' in told


def test_full_standard_is_checked(proj: Path, fake_llm: FakeLLM) -> None:
    """$ref, $defs and oneOf are beyond the quick argument check: jsonschema still rejects the wrong answer."""
    schema = {"type": "object", "$defs": {"positive": {"type": "integer", "minimum": 1}},
              "properties": {"n": {"$ref": "#/$defs/positive"},
                             "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]}},
              "required": ["n", "kind"]}
    fake_llm.push(Reply(tool_calls=[ToolCall("StructuredOutput", {"n": 0, "kind": "a"})]),
                  Reply(tool_calls=[ToolCall("StructuredOutput", {"n": 3, "kind": "b"})]))
    result = run(fake_llm, proj, schema)
    assert result.status == 0 and result.json()["structured_output"] == {"n": 3, "kind": "b"}
    assert "0 is less than the minimum of 1" in results_sent(fake_llm.requests[1].body)[-1]


def test_reply_without_the_call_gets_a_reminder(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="There are two files."), Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]))
    result = run(fake_llm, proj, SCHEMA)
    assert result.status == 0 and result.json()["structured_output"] == ANSWER
    assert "without calling the StructuredOutput tool" in results_sent(fake_llm.requests[1].body)[-1]


def test_retries_are_bounded(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="no"), Reply(tool_calls=[ToolCall("StructuredOutput", {"files": -1})]),
                  *[Reply(text="still no")] * 6)
    result = run(fake_llm, proj, SCHEMA)
    out = result.json()
    assert result.status == 1
    assert out["subtype"] == "error_max_structured_output_retries" and out["is_error"] is True
    assert "structured_output" not in out and out["error"]["code"] == "structured_output_retries"
    assert "after 5 attempts" in out["error"]["message"]
    assert len(fake_llm.requests) == 5


def test_a_schema_that_is_not_an_object_is_wrapped(proj: Path, fake_llm: FakeLLM) -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    fake_llm.push(Reply(tool_calls=[ToolCall("StructuredOutput", {"output": ["a.py", "b.py"]})]))
    result = run(fake_llm, proj, schema)
    assert result.status == 0 and result.json()["structured_output"] == ["a.py", "b.py"]
    assert tools_of(fake_llm.requests[0].body)["StructuredOutput"]["properties"]["output"] == schema


@pytest.mark.parametrize("schema", ['{"type": "nope"}', "{not json", "[1, 2]", '{"minimum": "ten"}'])
def test_a_bad_schema_is_refused_before_any_request(proj: Path, fake_llm: FakeLLM, schema: str) -> None:
    result = run(fake_llm, proj, schema)
    assert result.status == 2 and "[bad_json_schema]" in result.stderr and "--json-schema" in result.stderr
    assert fake_llm.requests == []


def test_a_run_without_a_schema_imports_none_of_it(proj: Path, fake_llm: FakeLLM) -> None:
    from tests.cli.helpers import imported_modules

    fake_llm.push(Reply(text="hi"))
    imported = imported_modules(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert not {"jsonschema", "agentcli.structured", "agentcli.settings.flagvalues"} & imported


def test_the_python_api_takes_a_schema(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from agentcli import query
    from agentcli.core.events import RunFinished
    from agentcli.errors import UsageError

    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")
    fake_llm.push(Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]))

    async def go(schema: Any) -> Any:
        return [ev async for ev in query("count", cwd=tmp_path, model=ANTHROPIC, json_schema=schema,
                                         no_session_persistence=True)][-1]

    end = asyncio.run(go(SCHEMA))
    assert isinstance(end, RunFinished) and end.result.structured_output == ANSWER
    with pytest.raises(UsageError, match="not a valid JSON Schema"):
        asyncio.run(go({"type": 5}))
