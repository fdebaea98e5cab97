"""Issue 18, acceptance 5: `output_format` (the SDK's `--json-schema`) returns a `structured_output` that validates,
with the real Claude Agent SDK driving agentcli against the fake LLM server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from claude_agent_sdk import ClaudeSDKClient, ResultError, ResultMessage, query

from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import make_sdk

SCHEMA = {"type": "object", "properties": {"words": {"type": "array", "items": {"type": "string"}},
                                           "count": {"type": "integer", "minimum": 0}},
          "required": ["words", "count"], "additionalProperties": False}
ANSWER = {"words": ["alpha", "beta"], "count": 2}


async def results(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


def test_output_format_gives_structured_output_that_validates(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm, {"notes.txt": "alpha\nbeta\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "notes.txt"})]),
                  Reply(tool_calls=[ToolCall("StructuredOutput", {"words": ["alpha"], "count": "one"})]),
                  Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]))
    options = sdk.options(output_format={"type": "json_schema", "schema": SCHEMA})
    result = asyncio.run(results("which words are in notes.txt?", options))[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success" and not result.is_error
    jsonschema.validate(result.structured_output, SCHEMA)
    assert result.structured_output == ANSWER
    assert "StructuredOutput" in [t["name"] for t in fake_llm.requests[0].body["tools"]]


def test_no_valid_output_ends_with_the_documented_subtype(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(*[Reply(text="I will not.")] * 5)
    options = sdk.options(output_format={"type": "json_schema", "schema": SCHEMA})
    seen: list[Any] = []

    async def run() -> None:
        async for m in query(prompt="answer", options=options):
            seen.append(m)

    with pytest.raises(ResultError) as raised:  # the SDK raises for an error result, after yielding it
        asyncio.run(run())
    result = seen[-1]
    assert isinstance(result, ResultMessage) and result.is_error and result.structured_output is None
    assert result.subtype == raised.value.subtype == "error_max_structured_output_retries"
    assert "after 5 attempts" in str(raised.value)


def test_each_turn_of_a_client_session_gives_its_own(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("StructuredOutput", ANSWER)]), Reply(text="no tool this time"),
                  Reply(tool_calls=[ToolCall("StructuredOutput", {"words": [], "count": 0})]))

    async def two_turns() -> list[Any]:
        got = []
        async with ClaudeSDKClient(sdk.options(output_format={"type": "json_schema", "schema": SCHEMA})) as client:
            for prompt in ("first", "second"):
                await client.query(prompt)
                got += [m async for m in client.receive_response() if isinstance(m, ResultMessage)]
        return got

    first, second = asyncio.run(two_turns())
    assert first.structured_output == ANSWER and second.structured_output == {"words": [], "count": 0}
    assert "without calling the StructuredOutput tool" in sdk.sent(2)  # the second turn had to give its own
