from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentcli import paths
from agentcli.core.events import (
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
)
from agentcli.errors import (
    AuthError,
    ContextOverflowError,
    OverloadedError,
    RateLimitError,
    StreamError,
    UnavailableError,
)
from agentcli.llm.messages import ImageBlock, Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock, Usage
from agentcli.net.errors import ApiIdentity
from agentcli.providers.base import ProviderConfig
from agentcli.providers.openai_chat import OpenAIChatProvider, normalize_usage, parse_stream
from tests.fakes import FakeLLM, Fault, Reply, ToolCall
from tests.fakes.script import Usage as FakeUsage
from tests.providers.helpers import collect, collect_until_error, request

KEY = "sk-proj-SECRETSECRET0123456789"


def provider(fake: FakeLLM, **kw: Any) -> OpenAIChatProvider:
    kw.setdefault("api_key", KEY)
    return OpenAIChatProvider(ProviderConfig("openai", base_url=fake.openai_url, max_retries=0, **kw))


def test_text_reasoning_parallel_tools_usage(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="héllo 😀", thinking="hmm", args_chunk_size=2,
                        tool_calls=[ToolCall("Read", {"file_path": "a.py"}, id="call_a"),
                                    ToolCall("Read", {"file_path": "b.py"}, id="call_b")],
                        usage=FakeUsage(100, 40, cache_read_tokens=30, reasoning_tokens=12)))
    events = collect(provider(fake_llm), request())
    assert events[0] == ThinkingDelta("hmm")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "héllo 😀"
    assert [e for e in events if isinstance(e, ToolCallStart)] == [ToolCallStart(0, "call_a", "Read"),
                                                                    ToolCallStart(1, "call_b", "Read")]
    assert "".join(e.arguments for e in events if isinstance(e, ToolCallDelta) and e.index == 1) == \
        '{"file_path":"b.py"}'
    assert [e for e in events if isinstance(e, ToolCallEnd)] == [ToolCallEnd(0), ToolCallEnd(1)]
    assert events[-2] == UsageReport(Usage(input_tokens=100, output_tokens=40, cache_read_tokens=30,
                                           reasoning_tokens=12))
    assert events[-1] == MessageStop("tool_use", "test-model")


def test_request_body(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    history = (
        Message.user("read a.py"),
        Message("assistant", (ThinkingBlock("plan", "sig", "anthropic"), TextBlock("sure"),
                              ToolUseBlock("toolu_1", "Read", {"file_path": "a.py"}, raw_arguments=None))),
        Message("user", (ToolResultBlock("toolu_1", "boom", is_error=True), TextBlock("go on"),
                         ImageBlock("image/png", "aGk="))),
    )
    collect(provider(fake_llm), request(*history, max_tokens=321, effort="high", temperature=0))
    req = fake_llm.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    body = req.body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 321 and "max_completion_tokens" not in body  # not api.openai.com
    assert body["reasoning_effort"] == "high" and body["temperature"] == 0
    assert body["tools"][0] == {"type": "function", "function": {
        "name": "Read", "description": "Read a file", "parameters": request().tools[0].input_schema}}
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read a.py"},
        {"role": "assistant", "content": "sure", "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "Read", "arguments": '{"file_path": "a.py"}'}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "Error: boom"},
        {"role": "user", "content": [{"type": "text", "text": "go on"},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}]},
    ]
    assert fake_llm.violations == []


def test_quirk_options(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="x", thinking="deep", reasoning_field="reasoning"))
    opts = {"include_usage": False, "max_tokens_field": "max_completion_tokens", "system_role": "developer",
            "send_reasoning_effort": False, "extra_body": {"top_k": 3}, "extra_headers": {"x-title": "t"},
            "reasoning_fields": ["reasoning"]}
    events = collect(provider(fake_llm, options=opts), request(effort="low"))
    body = fake_llm.requests[0].body
    assert "stream_options" not in body and body["max_completion_tokens"] == 8192
    assert body["messages"][0]["role"] == "developer" and body["top_k"] == 3
    assert "reasoning_effort" not in body
    assert fake_llm.requests[0].headers["x-title"] == "t"
    assert ThinkingDelta("deep") in events
    # no usage from the server: one estimate (~4 chars per token), flagged as such
    reports = [e for e in events if isinstance(e, UsageReport)]
    assert len(reports) == 1 and reports[0].usage.estimated
    assert reports[0].usage.output_tokens == 2 and reports[0].usage.input_tokens > 0


def test_official_host_uses_max_completion_tokens() -> None:
    p = OpenAIChatProvider(ProviderConfig("openai", api_key="k"))
    assert "max_completion_tokens" in p.build_body(request())


def test_key_rules() -> None:
    _, err = collect_until_error(OpenAIChatProvider(ProviderConfig("openai")), request())
    assert isinstance(err, AuthError)
    assert err.one_line() == f"OPENAI_API_KEY is not set — export it or put it in {paths.user_config_file()}"
    p = OpenAIChatProvider(ProviderConfig("openai", base_url="https://api.groq.com/openai/v1",
                                          options={"key_env": "GROQ_API_KEY", "label": "Groq"}))
    _, err = collect_until_error(p, request())
    assert "GROQ_API_KEY is not set" in str(err)


def test_loopback_needs_no_key(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="local"))
    events = collect(provider(fake_llm, api_key=None), request())
    assert TextDelta("local") in events and "authorization" not in fake_llm.requests[0].headers


@pytest.mark.parametrize(
    ("fault", "cls"),
    [
        (Fault.unauthorized(), AuthError),
        (Fault.rate_limit(retry_after=2), RateLimitError),
        (Fault.overloaded(), OverloadedError),
        (Fault.server_error(), UnavailableError),
        (Fault("http", 400, "This model's maximum context length is 8192 tokens"), ContextOverflowError),
        (Fault("stream_error", 500, "upstream exploded"), UnavailableError),
        (Fault("malformed"), StreamError),
        (Fault("drop_mid", after_events=3), UnavailableError),
    ],
)
def test_errors_are_mapped(fake_llm: FakeLLM, fault: Fault, cls: type) -> None:
    fake_llm.push(Reply(text="some text here", fault=fault))
    _, err = collect_until_error(provider(fake_llm), request())
    assert isinstance(err, cls), repr(err)
    assert KEY not in err.one_line()  # type: ignore[attr-defined]
    if cls is AuthError:
        assert err.hint == "check OPENAI_API_KEY"  # type: ignore[attr-defined]


def _parse(*frames: str) -> list[StreamEvent]:
    async def chunks() -> AsyncIterator[bytes]:
        for f in frames:
            yield f.encode()

    async def run() -> list[StreamEvent]:
        return [e async for e in parse_stream(chunks(), ApiIdentity("X"))]

    return asyncio.run(run())


def test_lenient_servers() -> None:
    """No index, name after id, dict arguments, finish 'stop' with tool calls, no [DONE]."""
    events = _parse(
        'data: {"choices":[{"delta":{"tool_calls":[{"id":"c1","function":{"arguments":"{\\"a\\""}}]}}]}\n\n',
        'data: {"choices":[{"delta":{"tool_calls":[{"function":{"name":"Glob","arguments":":1}"}}]}}]}\n\n',
        'data: {"choices":[{"delta":{"tool_calls":[{"id":"c2","function":{"name":"Read","arguments":{"x":2}}}]}}]}\n\n',
        'data: {"model":"local","choices":[{"delta":{},"finish_reason":"stop"}]}\n\n',
    )
    assert events == [
        ToolCallStart(0, "c1", "Glob"), ToolCallDelta(0, '{"a"'), ToolCallDelta(0, ":1}"),
        ToolCallStart(1, "c2", "Read"), ToolCallDelta(1, '{"x": 2}'),
        ToolCallEnd(0), ToolCallEnd(1), UsageReport(Usage(0, 4, estimated=True)), MessageStop("tool_use", "local"),
    ]


def test_stream_without_finish_is_dropped() -> None:
    with pytest.raises(UnavailableError, match="before finish_reason"):
        _parse('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n')


def test_usage_normalization_deepseek_style() -> None:
    assert normalize_usage({"prompt_tokens": 50, "completion_tokens": 5, "prompt_cache_hit_tokens": 20}) == \
        Usage(input_tokens=30, output_tokens=5, cache_read_tokens=20)


@pytest.mark.parametrize("frame", ['data: [1, 2]\n\n', 'data: {"choices":[{"delta":{"tool_calls":[7]}}]}\n\n',
                                   'data: {"choices": "x"}\n\n'])
def test_wrong_shapes_are_stream_errors(frame: str) -> None:
    with pytest.raises(StreamError, match="malformed event"):
        _parse(frame)


def test_invalid_utf8_does_not_crash() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'data: {"choices":[{"delta":{"content":"\xff ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'

    async def run() -> list[StreamEvent]:
        return [e async for e in parse_stream(chunks(), ApiIdentity("X"))]

    assert asyncio.run(run())[0] == TextDelta("\ufffd ok")


def test_alnum9_hosts_get_mapped_tool_call_ids_for_calls_and_results() -> None:
    from agentcli.llm.messages import Message, ToolResultBlock, ToolUseBlock
    from agentcli.providers.openai_chat import wire_messages

    history = (
        Message.user("go"),
        Message("assistant", (ToolUseBlock("toolu_01ABCdef", "Read", {"file_path": "a"}),)),
        Message("user", (ToolResultBlock("toolu_01ABCdef", "x"),)),
    )
    msgs = wire_messages("", history, id_style="alnum9")
    call_id = msgs[1]["tool_calls"][0]["id"]
    assert len(call_id) == 9 and call_id.isalnum() and msgs[2]["tool_call_id"] == call_id
    assert wire_messages("", history)[1]["tool_calls"][0]["id"] == "toolu_01ABCdef"
    ok = (Message("assistant", (ToolUseBlock("Ab3dE6gH9", "Read", {}),)),)
    assert wire_messages("", ok, id_style="alnum9")[0]["tool_calls"][0]["id"] == "Ab3dE6gH9"
