"""The official SDKs, pointed at the fake, parse everything it sends; and our lean adapters yield the same
normalized events as a small normalizer over the SDKs' own stream objects (the reference path)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentcli.core.events import (
    MessageStop,
    RedactedThinking,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
)
from agentcli.llm.messages import Usage
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import ProviderConfig
from agentcli.providers.openai_chat import OpenAIChatProvider
from tests.fakes import FakeLLM, Reply, ToolCall
from tests.fakes.script import Usage as FakeUsage
from tests.providers.helpers import READ, collect

PROMPT = [{"role": "user", "content": "hi"}]

SCENARIOS = {
    "text": Reply(text="Hello, world. " * 5, chunk_size=3),
    "unicode": Reply(text="naïve café — 日本語 😀👍🏽 \\n \"quoted\"", chunk_size=1),
    "empty_text": Reply(text=""),
    "split_args": Reply(tool_calls=[ToolCall("Edit", {"file_path": "p.py", "old_string": "a\n\"b\"",
                                                      "new_string": "ü 😀"}, id="call_edit")],
                        args_chunk_size=1),
    "parallel": Reply(text="Reading both.", tool_calls=[ToolCall("Read", {"file_path": "a.py"}, id="call_1"),
                                                        ToolCall("Read", {"file_path": "b.py"}, id="call_2"),
                                                        ToolCall("Bash", {"command": "ls"}, id="call_3")]),
    "thinking_then_tool": Reply(thinking="I should read it first.", chunk_size=5,
                                tool_calls=[ToolCall("Read", {"file_path": "x"}, id="call_t")]),
    "usage": Reply(text="ok", usage=FakeUsage(1234, 56, cache_read_tokens=1000, cache_write_tokens=200,
                                               reasoning_tokens=7)),
    "max_tokens": Reply(text="truncat", stop_reason="max_tokens"),
}


# ---- reference normalizers over the SDK objects -----------------------------------------------------------


def _anthropic_usage(u: Any, prev: Usage) -> Usage:
    def pick(name: str, old: int) -> int:
        v = getattr(u, name, None)
        return int(v) if v is not None else old

    return Usage(pick("input_tokens", prev.input_tokens), pick("output_tokens", prev.output_tokens),
                 pick("cache_read_input_tokens", prev.cache_read_tokens),
                 pick("cache_creation_input_tokens", prev.cache_write_tokens))


async def sdk_anthropic_events(base_url: str, model: str) -> tuple[list[StreamEvent], Any]:
    import anthropic

    client = anthropic.AsyncAnthropic(base_url=base_url, api_key="dummy", max_retries=0)
    tools = [{"name": READ.name, "description": READ.description, "input_schema": READ.input_schema}]
    out: list[StreamEvent] = []
    usage, stop, resp_model, tool_blocks = Usage(), "end_turn", None, set()
    async with client.messages.stream(model=model, max_tokens=100, messages=PROMPT, tools=tools) as stream:
        async for ev in stream:
            if ev.type == "message_start":
                resp_model = ev.message.model
                usage = _anthropic_usage(ev.message.usage, usage)
                out.append(UsageReport(usage))
            elif ev.type == "content_block_start":
                b = ev.content_block
                if b.type == "tool_use":
                    tool_blocks.add(ev.index)
                    out.append(ToolCallStart(ev.index, b.id, b.name))
                elif b.type == "redacted_thinking":
                    out.append(RedactedThinking(b.data))
            elif ev.type == "content_block_delta":
                d = ev.delta
                if d.type == "text_delta":
                    out.append(TextDelta(d.text))
                elif d.type == "thinking_delta":
                    out.append(ThinkingDelta(d.thinking))
                elif d.type == "signature_delta":
                    out.append(ThinkingSignature(d.signature))
                elif d.type == "input_json_delta":
                    out.append(ToolCallDelta(ev.index, d.partial_json))
            elif ev.type == "content_block_stop" and ev.index in tool_blocks:
                out.append(ToolCallEnd(ev.index))
            elif ev.type == "message_delta":
                stop = ev.delta.stop_reason or stop
                usage = _anthropic_usage(ev.usage, usage)
                out.append(UsageReport(usage))
            elif ev.type == "message_stop":
                out.append(MessageStop(stop, resp_model))  # type: ignore[arg-type]
        final = await stream.get_final_message()
    await client.close()
    return out, final


_FINISH: dict[str, StopReason] = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


async def sdk_openai_events(base_url: str, model: str) -> tuple[list[StreamEvent], Any]:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="dummy", max_retries=0)
    tools = [{"type": "function", "function": {"name": READ.name, "description": READ.description,
                                               "parameters": READ.input_schema}}]
    out: list[StreamEvent] = []
    finish, resp_model, open_calls = "end_turn", None, []
    async with client.chat.completions.stream(model=model, messages=PROMPT, tools=tools,  # type: ignore[arg-type]
                                              stream_options={"include_usage": True}) as stream:
        async for ev in stream:
            if ev.type != "chunk":
                continue
            chunk = ev.chunk
            resp_model = chunk.model
            for choice in chunk.choices:
                extra = choice.delta.model_extra or {}
                if extra.get("reasoning_content"):
                    out.append(ThinkingDelta(extra["reasoning_content"]))
                if choice.delta.content:
                    out.append(TextDelta(choice.delta.content))
                for tc in choice.delta.tool_calls or ():
                    if tc.id:
                        open_calls.append(tc.index)
                        out.append(ToolCallStart(tc.index, tc.id, tc.function.name))  # type: ignore[union-attr, arg-type]
                    if tc.function and tc.function.arguments:
                        out.append(ToolCallDelta(tc.index, tc.function.arguments))
                if choice.finish_reason:
                    finish = _FINISH[choice.finish_reason]
                    out += [ToolCallEnd(i) for i in open_calls]
            if chunk.usage:
                u = chunk.usage
                cached = u.prompt_tokens_details.cached_tokens or 0 if u.prompt_tokens_details else 0
                reasoning = u.completion_tokens_details.reasoning_tokens or 0 if u.completion_tokens_details else 0
                out.append(UsageReport(Usage(u.prompt_tokens - cached, u.completion_tokens, cached,
                                             reasoning_tokens=reasoning)))
        try:
            final = await stream.get_final_completion()
        except openai.LengthFinishReasonError as e:  # the helper refuses to "parse" a truncated reply
            final = e.completion
    out.append(MessageStop(finish, resp_model))  # type: ignore[arg-type]
    await client.close()
    return out, final


# ---- tests ------------------------------------------------------------------------------------------------


def _ours(provider: Any) -> list[StreamEvent]:
    from tests.providers.helpers import request

    return merged(collect(provider, request(model="claude-test")))


def merged(events: list[StreamEvent]) -> list[StreamEvent]:
    """`events` with consecutive text, thinking, or same-call argument deltas joined. The adapters merge what
    one network read brought (the SDKs never do), so how the bytes were split must not decide the comparison."""
    out: list[StreamEvent] = []
    for ev in events:
        last = out[-1] if out else None
        if isinstance(ev, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + ev.text)
        elif isinstance(ev, ThinkingDelta) and isinstance(last, ThinkingDelta):
            out[-1] = ThinkingDelta(last.text + ev.text)
        elif isinstance(ev, ToolCallDelta) and isinstance(last, ToolCallDelta) and ev.index == last.index:
            out[-1] = ToolCallDelta(ev.index, last.arguments + ev.arguments)
        else:
            out.append(ev)
    return out


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_anthropic_sdk_and_lean_adapter_agree(fake_llm: FakeLLM, scenario: str) -> None:
    reply = SCENARIOS[scenario]
    fake_llm.push(reply, reply)
    ref, final = asyncio.run(sdk_anthropic_events(fake_llm.url, "claude-test"))
    ref = merged(ref)
    ours = _ours(AnthropicProvider(ProviderConfig("anthropic", base_url=fake_llm.url, api_key="dummy")))
    assert ours == ref
    assert fake_llm.violations == []
    # the SDK's own accumulation agrees with the script
    blocks = {b.type: b for b in final.content}
    assert "".join(b.text for b in final.content if b.type == "text") == reply.text
    assert [(b.name, b.input) for b in final.content if b.type == "tool_use"] == \
        [(c.name, c.args) for c in reply.tool_calls]
    if reply.thinking:
        assert blocks["thinking"].thinking == reply.thinking and blocks["thinking"].signature == "sig-fake"
    assert final.stop_reason == reply.final_stop_reason()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_openai_sdk_and_lean_adapter_agree(fake_llm: FakeLLM, scenario: str) -> None:
    reply = SCENARIOS[scenario]
    fake_llm.push(reply, reply)
    ref, final = asyncio.run(sdk_openai_events(fake_llm.openai_url, "gpt-test"))
    ref = merged(ref)
    ours = _ours(OpenAIChatProvider(ProviderConfig("openai", base_url=fake_llm.openai_url, api_key="dummy")))
    # the two requests named different models, so MessageStop.model differs; everything else must not
    assert [e for e in ours if not isinstance(e, MessageStop)] == [e for e in ref if not isinstance(e, MessageStop)]
    assert isinstance(ours[-1], MessageStop) and ours[-1].stop_reason == ref[-1].stop_reason  # type: ignore[union-attr]
    assert fake_llm.violations == []
    msg = final.choices[0].message
    assert (msg.content or "") == reply.text
    assert [(t.function.name, json.loads(t.function.arguments)) for t in msg.tool_calls or ()] == \
        [(c.name, c.args) for c in reply.tool_calls]


def test_anthropic_sdk_accepts_the_error_bodies(fake_llm: FakeLLM) -> None:
    """The SDK maps the fake's error responses to its own typed errors (so our bodies are real-shaped)."""
    import anthropic
    import openai

    from tests.fakes import Fault

    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=0)), Reply(fault=Fault.overloaded()),
                  Reply(fault=Fault.unauthorized()))

    async def run() -> list[type]:
        a = anthropic.AsyncAnthropic(base_url=fake_llm.url, api_key="dummy", max_retries=0)
        o = openai.AsyncOpenAI(base_url=fake_llm.openai_url, api_key="dummy", max_retries=0)
        got: list[type] = []
        for call in (
            lambda: a.messages.create(model="m", max_tokens=5, messages=PROMPT, stream=True),  # type: ignore[arg-type]
            lambda: a.messages.create(model="m", max_tokens=5, messages=PROMPT, stream=True),  # type: ignore[arg-type]
            lambda: o.chat.completions.create(model="m", messages=PROMPT, stream=True),  # type: ignore[arg-type]
        ):
            try:
                await call()
            except Exception as e:
                got.append(type(e))
        await a.close()
        await o.close()
        return got

    assert [t.__name__ for t in asyncio.run(run())] == ["RateLimitError", "OverloadedError", "AuthenticationError"]
