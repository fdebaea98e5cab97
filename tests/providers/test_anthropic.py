from __future__ import annotations

import contextlib
from typing import Any

import pytest

from agentcli import paths
from agentcli.core.events import (
    MessageStop,
    RedactedThinking,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
)
from agentcli.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    OverloadedError,
    RateLimitError,
    StreamError,
    UnavailableError,
)
from agentcli.llm.messages import (
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from agentcli.net.http import HttpClient, Timeouts
from agentcli.providers.anthropic import AnthropicProvider, parse_stream
from agentcli.providers.base import ProviderConfig
from tests.fakes import FakeLLM, Fault, Reply, ToolCall
from tests.fakes.script import Usage as FakeUsage
from tests.providers.helpers import collect, collect_until_error, request

KEY = "sk-ant-test-SECRET-0123456789"


def provider(fake: FakeLLM, **kw: Any) -> AnthropicProvider:
    kw.setdefault("api_key", KEY)
    return AnthropicProvider(ProviderConfig("anthropic", base_url=fake.url, max_retries=0, **kw))


def test_text_thinking_tools_and_usage(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="héllo 😀", thinking="let me see", chunk_size=4,
                        tool_calls=[ToolCall("Read", {"file_path": "a.py"}, id="toolu_1"),
                                    ToolCall("Read", {"file_path": "b.py"}, id="toolu_2")],
                        usage=FakeUsage(120, 33, cache_read_tokens=50, cache_write_tokens=7)))
    events = collect(provider(fake_llm), request())
    assert events[0] == UsageReport(Usage(120, 1, 50, 7))
    thinking = [e.text for e in events if isinstance(e, ThinkingDelta)]
    # The first piece of a block is its own event; what follows is merged per network read.
    assert thinking[0] == "let " and "".join(thinking) == "let me see" and len(thinking) >= 2
    assert ThinkingSignature("sig-fake") in events
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "héllo 😀"
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert starts == [ToolCallStart(2, "toolu_1", "Read"), ToolCallStart(3, "toolu_2", "Read")]
    args = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta) and e.index == 3)
    assert args == '{"file_path":"b.py"}'
    assert [e for e in events if isinstance(e, ToolCallEnd)] == [ToolCallEnd(2), ToolCallEnd(3)]
    assert events[-2] == UsageReport(Usage(120, 33, 50, 7))
    assert events[-1] == MessageStop("tool_use", "test-model")


def test_request_body_and_headers(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    history = (
        Message.user("read a.py"),
        Message("assistant", (ThinkingBlock("plan", "sig-1"), ThinkingBlock("openai thoughts", None, "openai"),
                              TextBlock(""), ToolUseBlock("call.1", "Read", {"file_path": "a.py"}))),
        Message("user", (TextBlock("and then?"), ToolResultBlock("call.1", "1\tx = 1", is_error=False))),
        Message("user", (ImageBlock("image/png", "aGk="),)),
        Message("assistant", (RedactedThinkingBlock("opaque"), TextBlock("done"))),
        Message("user", (ToolResultBlock("none", "", is_error=True), TextBlock("thanks"))),
    )
    # the last user message answers nothing: the strict fake would reject it, so check the body only
    fake_llm.strict = False
    collect(provider(fake_llm, options={"betas": ["b1", "b2"]}), request(*history, max_tokens=500,
                                                                          temperature=0.2))
    req = fake_llm.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == KEY
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert req.headers["anthropic-beta"] == "b1,b2"
    body = req.body
    assert body["stream"] is True and body["max_tokens"] == 500 and body["temperature"] == 0.2
    assert body["system"] == [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["input_schema"]["required"] == ["file_path"]
    msgs = body["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert msgs[1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
        {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"file_path": "a.py"}},
    ]
    assert msgs[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "1\tx = 1"},
        {"type": "text", "text": "and then?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "aGk="}},
    ]
    assert msgs[3]["content"][0] == {"type": "redacted_thinking", "data": "opaque"}
    assert msgs[4]["content"] == [
        {"type": "tool_result", "tool_use_id": "none", "is_error": True},
        {"type": "text", "text": "thanks", "cache_control": {"type": "ephemeral"}},
    ]


def test_thinking_budget_and_no_caching(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="a"), Reply(text="b"))
    collect(provider(fake_llm), request(effort="low", max_tokens=1000, temperature=0.5))
    collect(provider(fake_llm, options={"prompt_caching": False, "thinking_budgets": {"high": 2048}}),
            request(effort="high", max_tokens=8000))
    first, second = (r.body for r in fake_llm.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert first["max_tokens"] == 5000 and "temperature" not in first
    assert second["thinking"]["budget_tokens"] == 2048 and second["max_tokens"] == 8000
    assert "cache_control" not in str(second)
    assert fake_llm.violations == []


def test_auth_token_is_bearer(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    collect(provider(fake_llm, api_key=None, options={"auth_token": "tok-123456"}), request())
    headers = fake_llm.requests[0].headers
    assert headers["authorization"] == "Bearer tok-123456" and "x-api-key" not in headers


def test_missing_key_fails_before_any_request() -> None:
    p = AnthropicProvider(ProviderConfig("anthropic"))
    _, err = collect_until_error(p, request())
    assert isinstance(err, AuthError)
    assert err.one_line() == f"ANTHROPIC_API_KEY is not set — export it or put it in {paths.user_config_file()}"


def test_loopback_needs_no_key(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="local"))
    events = collect(provider(fake_llm, api_key=None), request())
    assert TextDelta("local") in events
    assert "x-api-key" not in fake_llm.requests[0].headers


@pytest.mark.parametrize(
    ("fault", "cls", "check"),
    [
        (Fault.unauthorized(), AuthError, lambda e: e.hint == "check ANTHROPIC_API_KEY" and e.exit_status == 2),
        (Fault.rate_limit(retry_after=7), RateLimitError, lambda e: e.retry_after == 7 and e.status == 429),
        (Fault.rate_limit(None, retry_after_ms=1500), RateLimitError, lambda e: e.retry_after == 1.5),
        (Fault.overloaded(), OverloadedError, lambda e: e.status == 529 and e.exit_status == 75),
        (Fault.server_error(), UnavailableError, lambda e: e.code == "unavailable"),
        (Fault("http", 503, "busy"), OverloadedError, lambda e: e.retryable),
        (Fault.context_overflow(), ContextOverflowError, lambda e: "too long" in e.message),
        (Fault("http", 404, "model: claude-x not found"), BadRequestError, lambda e: "model name" in e.hint),
        (Fault("http", 400, "bad things"), BadRequestError, lambda e: not e.retryable),
        (Fault("stream_error", 529, "Overloaded"), OverloadedError, lambda e: e.code == "overloaded"),
        (Fault("malformed"), StreamError, lambda e: e.code == "stream_error"),
        (Fault("drop_mid", after_events=4), UnavailableError, lambda e: not e.retryable),
        (Fault("drop_before"), UnavailableError, lambda e: not e.retryable and "may have processed" in e.hint),
    ],
)
def test_errors_are_mapped(fake_llm: FakeLLM, fault: Fault, cls: type, check: Any) -> None:
    fake_llm.push(Reply(text="some text here", fault=fault))
    _, err = collect_until_error(provider(fake_llm), request())
    assert type(err) is cls or isinstance(err, cls), repr(err)
    assert check(err), repr(err)
    assert KEY not in str(err) and KEY not in err.one_line()  # type: ignore[attr-defined]


def test_key_echoed_by_server_is_redacted(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault("http", 401, f"invalid x-api-key {KEY}")))
    _, err = collect_until_error(provider(fake_llm), request())
    assert KEY not in err.one_line() and "[REDACTED]" in err.one_line()  # type: ignore[attr-defined]


def test_slow_first_byte_times_out(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="late", fault=Fault("slow_first_byte", delay_s=5)))
    p = AnthropicProvider(ProviderConfig("anthropic", base_url=fake_llm.url, api_key=KEY),
                          client=HttpClient(Timeouts(1, 0.2, 1)))
    _, err = collect_until_error(p, request())
    assert err.code == "timeout" and err.exit_status == 75  # type: ignore[attr-defined]


def test_parse_stream_handles_unknown_events_and_end_without_stop() -> None:
    import asyncio
    from collections.abc import AsyncIterator

    from agentcli.net.errors import ApiIdentity

    raw = (b'event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":'
           b'{"input_tokens":3,"output_tokens":1}}}\n\n'
           b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
           b'"content_block":{"type":"redacted_thinking","data":"xx"}}\n\n'
           b'event: future_thing\ndata: {"type":"future_thing"}\n\n'
           b'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,'
           b'"delta":{"type":"citations_delta","citation":{}}}\n\n')

    async def chunks() -> AsyncIterator[bytes]:
        yield raw

    async def run() -> list[object]:
        return [e async for e in parse_stream(chunks(), ApiIdentity("Anthropic"))]

    with pytest.raises(UnavailableError, match="before message_stop"):
        asyncio.run(run())

    async def partial() -> list[object]:
        got: list[object] = []
        try:
            async for e in parse_stream(chunks(), ApiIdentity("Anthropic")):
                got.append(e)
        except UnavailableError:
            pass
        return got

    assert asyncio.run(partial()) == [UsageReport(Usage(3, 1)), RedactedThinking("xx")]


def test_multi_turn_conversation_is_valid_on_the_wire(fake_llm: FakeLLM) -> None:
    """Replay what a loop would send: the strict fake checks alternation and tool_use/tool_result pairing."""
    fake_llm.push(Reply(thinking="t", tool_calls=[ToolCall("Read", {"file_path": "x"}, id="toolu_9")]),
                  Reply(text="done"))
    collect(provider(fake_llm), request())
    turn2 = (
        Message.user("hi"),
        Message("assistant", (ThinkingBlock("t", "sig-fake"), ToolUseBlock("toolu_9", "Read", {"file_path": "x"}))),
        Message("user", (ToolResultBlock("toolu_9", "contents"),)),
    )
    events = collect(provider(fake_llm), request(*turn2, effort="low"))
    assert events[-1] == MessageStop("end_turn", "test-model")
    assert fake_llm.violations == []


@pytest.mark.parametrize("data", ['{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}',
                                  '[1]', '{"type":"message_start","message":null}', '{"no":"type"}'])
def test_wrong_shapes_are_stream_errors(data: str) -> None:
    from agentcli.net.errors import ApiIdentity
    from agentcli.providers.anthropic import StreamState

    with pytest.raises(StreamError, match="malformed event"):
        StreamState(ApiIdentity("Anthropic")).handle(data)


def test_consumer_stopping_mid_stream_closes_cleanly(fake_llm: FakeLLM) -> None:
    """Breaking out (Esc) or cancelling mid-stream drops the connection; the next request still works."""
    import asyncio

    fake_llm.push(Reply(pieces=tuple(f"w{i} " for i in range(5000))), Reply(text="slow", fault=Fault(
        "slow_first_byte", delay_s=5)), Reply(text="next"))
    p = provider(fake_llm)

    async def run() -> list[object]:
        async for ev in p.stream(request()):
            if isinstance(ev, TextDelta):
                break
        task = asyncio.ensure_future(_drain(p))
        assert await asyncio.to_thread(fake_llm.wait_for_requests, 2, 10)  # the slow request has arrived
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        events = [ev async for ev in p.stream(request())]
        await p.aclose()
        return events

    events = asyncio.run(run())
    assert TextDelta("next") in events and len(fake_llm.requests) == 3


async def _drain(p: AnthropicProvider) -> None:
    async for _ in p.stream(request()):
        pass
