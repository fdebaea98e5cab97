"""Issue 18, acceptance 1: `claude_agent_sdk.query()` with agentcli as the engine returns the SDK's own typed
messages for a run with tool calls, and a ResultMessage with cost and usage."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)

from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import make_sdk


async def collect(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


def test_query_with_tool_calls_returns_typed_messages_and_a_costed_result(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm, {"notes.txt": "alpha\nbeta\n"})
    fake_llm.push(Reply(text="Let me read it.", thinking="the file first",
                        tool_calls=[ToolCall("Read", {"file_path": "notes.txt"})]),
                  Reply(text="It lists alpha and beta."))
    messages = asyncio.run(collect("what is in notes.txt?", sdk.options()))

    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert "Read" in init.data["tools"] and init.data["permissionMode"] == "default"
    first, results, second, result = messages[1:]
    assert isinstance(first, AssistantMessage) and first.model == "claude-sonnet-4-5"
    call = next(b for b in first.content if isinstance(b, ToolUseBlock))
    assert (call.name, call.input) == ("Read", {"file_path": "notes.txt"})
    assert isinstance(results, UserMessage)
    block = results.content[0]
    assert isinstance(block, ToolResultBlock) and block.tool_use_id == call.id and "beta" in str(block.content)
    assert isinstance(second, AssistantMessage)
    assert [b.text for b in second.content if isinstance(b, TextBlock)] == ["It lists alpha and beta."]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 2)
    assert result.result == "It lists alpha and beta."
    assert result.total_cost_usd is not None and result.total_cost_usd > 0
    assert result.usage is not None and result.usage["input_tokens"] == 20
    assert result.session_id == init.data["session_id"] == first.session_id
    assert result.permission_denials == []
    assert "claude-sonnet-4-5" in (result.model_usage or {})


def test_partial_messages_arrive_as_stream_events(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="one two three", chunk_size=4))
    messages = asyncio.run(collect("count", sdk.options(include_partial_messages=True)))
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    deltas = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert deltas == "one two three"
    assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
    reply = next(m for m in messages if isinstance(m, AssistantMessage))
    assert events[0]["message"]["id"] == reply.message_id and events[0]["message"]["model"] == "claude-sonnet-4-5"
    assert isinstance(messages[-1], ResultMessage)


def test_a_session_the_sdk_ran_resumes(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="The word is heron."), Reply(text="You asked for the word."))
    first = asyncio.run(collect("remember the word heron", sdk.options()))[-1]
    assert isinstance(first, ResultMessage)
    again = asyncio.run(collect("what did I ask?", sdk.options(resume=first.session_id)))[-1]
    assert isinstance(again, ResultMessage) and again.session_id == first.session_id
    assert "remember the word heron" in sdk.sent(1) and "The word is heron." in sdk.sent(1)


def png() -> str:
    import base64
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


async def blocks(content: list[dict[str, Any]]) -> Any:
    yield {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": None,
           "session_id": ""}


def test_content_blocks_with_an_image_reach_the_model(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="A red square."))
    data = png()
    content = [{"type": "text", "text": "what is this?"},
               {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]
    messages = asyncio.run(collect_stream(blocks(content), sdk.options()))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "A red square."
    sent = fake_llm.requests[0].body["messages"][0]["content"]
    assert {"type": "text", "text": "what is this?"} in sent
    image = next(b for b in sent if b["type"] == "image")
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": data}


async def collect_stream(prompt: Any, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


def test_subagents_defined_in_code_are_used(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from claude_agent_sdk import AgentDefinition

    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "review", "prompt": "review notes.txt",
                                            "subagent_type": "reviewer"})]),
        Reply(text="notes.txt looks fine", when="review notes.txt"),
        Reply(text="The reviewer says it is fine."),
    )
    agents = {"reviewer": AgentDefinition(description="Reviews files strictly",
                                          prompt="You are a strict reviewer of text files.", tools=["Read"])}
    messages = asyncio.run(collect("review my notes", sdk.options(agents=agents,
                                                                  permission_mode="bypassPermissions")))
    parent, child, _ = (r.body for r in fake_llm.requests)
    assert "Reviews files strictly" in str(parent["tools"])
    assert "You are a strict reviewer of text files." in str(child["system"])
    assert sorted(t["name"] for t in child["tools"]) == ["Read"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "The reviewer says it is fine."


def test_a_subagent_field_agentcli_cannot_honour_fails_the_connection(tmp_path: Path, fake_llm: FakeLLM) -> None:
    import pytest
    from claude_agent_sdk import AgentDefinition

    sdk = make_sdk(tmp_path, fake_llm)
    agents = {"careful": AgentDefinition(description="d", prompt="p", permissionMode="plan")}
    with pytest.raises(Exception, match="permissionMode not supported"):
        asyncio.run(collect("hi", sdk.options(agents=agents)))
    assert not fake_llm.requests


def test_another_provider_behind_the_sdk_thinking_without_a_signature(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from claude_agent_sdk import ThinkingBlock

    from tests.cli.helpers import OPENAI, provider_env

    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(thinking="two plus two", text="4"))
    options = sdk.options(model=OPENAI, env=provider_env(fake_llm, OPENAI))
    messages = asyncio.run(collect("what is 2+2?", options))
    reply = next(m for m in messages if isinstance(m, AssistantMessage))
    thinking = next(b for b in reply.content if isinstance(b, ThinkingBlock))
    assert (thinking.thinking, thinking.signature) == ("two plus two", "")
    assert reply.model == "gpt-4.1" and fake_llm.requests[0].path.endswith("/chat/completions")
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "4"


async def first(options: Any) -> Any:
    async for message in query(prompt="hi", options=options):
        return message


def test_init_lists_the_agents_the_task_tool_can_start(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from claude_agent_sdk import AgentDefinition

    sdk = make_sdk(tmp_path, fake_llm)
    reviewer = {"reviewer": AgentDefinition(description="Reviews code", prompt="You review code.", tools=["Read"])}
    fake_llm.push(Reply(text="hello"), Reply(text="hello"))
    init = asyncio.run(first(sdk.options(agents=reviewer)))
    assert isinstance(init, SystemMessage) and init.data["agents"] == ["explore", "general-purpose", "reviewer"]
    init = asyncio.run(first(sdk.options(agents=reviewer, tools=["Read"])))  # no Task tool: no agents to start
    assert isinstance(init, SystemMessage) and init.data["agents"] == []


def test_the_result_says_why_the_last_reply_stopped(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="cut sho", stop_reason="max_tokens"))
    messages = asyncio.run(collect("write a lot", sdk.options()))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].stop_reason == "max_tokens"
