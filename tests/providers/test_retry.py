from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentcli.core.events import (
    ApiRetry,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
)
from agentcli.errors import BadRequestError, OverloadedError, ProviderError, RateLimitError, UnavailableError
from agentcli.llm.messages import Usage
from agentcli.providers.base import ProviderConfig
from agentcli.providers.factory import make_provider
from agentcli.providers.retry import RetryingProvider, backoff_delay, stream_with_retries
from tests.fakes import FakeLLM, Fault, Reply
from tests.providers.helpers import collect, collect_until_error, request

FAST = {"retry_base_delay_s": 0.001, "retry_max_delay_s": 0.01}


def cfg(**kw: Any) -> ProviderConfig:
    return ProviderConfig("x", **{"max_retries": 3, **FAST, **kw})


@pytest.mark.parametrize("name", ["anthropic", "openai"])
@pytest.mark.parametrize(
    "fault",
    [Fault.rate_limit(retry_after=0), Fault.server_error(), Fault.overloaded(),
     Fault("stream_error", 529, "Overloaded", after_events=1), Fault("http", 408, "timeout"),
     Fault("http", 409, "conflict")],
)
def test_fault_before_output_is_retried(fake_llm: FakeLLM, name: str, fault: Fault) -> None:
    fake_llm.push(Reply(text="x", fault=fault), Reply(text="recovered"))
    base = fake_llm.url if name == "anthropic" else fake_llm.openai_url
    p = make_provider(ProviderConfig(name, base_url=base, api_key="k", max_retries=2, **FAST))
    assert isinstance(p, RetryingProvider)
    events = collect(p, request())
    retries = [e for e in events if isinstance(e, ApiRetry)]
    assert len(retries) == 1 and retries[0].attempt == 1 and retries[0].max_retries == 2
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "recovered"
    assert isinstance(events[-1], MessageStop)
    assert len(fake_llm.requests) == 2


def test_retry_after_is_honoured_and_capped(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=0.05)), Reply(fault=Fault.rate_limit(retry_after=999)),
                  Reply(text="ok"))
    p = make_provider(ProviderConfig("anthropic", base_url=fake_llm.url, api_key="k", max_retries=3,
                                     retry_base_delay_s=0.001, retry_max_delay_s=0.06))
    events = collect(p, request())
    delays = [e.delay_s for e in events if isinstance(e, ApiRetry)]
    assert delays == [0.05, 0.06]
    retry = next(e for e in events if isinstance(e, ApiRetry))
    assert retry.error_code == "rate_limit" and retry.status == 429 and "Rate limited" in retry.message


def test_gives_up_after_max_retries_with_last_error(fake_llm: FakeLLM) -> None:
    fake_llm.push(*[Reply(fault=Fault.overloaded())] * 3)
    p = make_provider(ProviderConfig("openai", base_url=fake_llm.openai_url, max_retries=2, **FAST))
    events, err = collect_until_error(p, request())
    assert isinstance(err, OverloadedError) and err.exit_status == 75
    assert [e.attempt for e in events if isinstance(e, ApiRetry)] == [1, 2]
    assert len(fake_llm.requests) == 3


def test_not_retryable_is_raised_at_once(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault("http", 400, "bad")), Reply(text="never"))
    p = make_provider(ProviderConfig("anthropic", base_url=fake_llm.url, max_retries=3, **FAST))
    events, err = collect_until_error(p, request())
    assert isinstance(err, BadRequestError) and events == [] and len(fake_llm.requests) == 1


@pytest.mark.parametrize("name", ["anthropic", "openai"])
@pytest.mark.parametrize("with_tool", [False, True], ids=["cut-in-text", "cut-in-tool-call"])
def test_break_mid_reply_is_retried_and_discarded(fake_llm: FakeLLM, name: str, with_tool: bool) -> None:
    """A reply the server breaks off in the middle (an in-stream overloaded error, in text or in half a tool
    call's arguments) is retried; the retry says the attempt's output is void, and the builder fed the whole
    stream holds only the retried reply. (Whether an error is retryable is its class's call: a dropped
    connection may have been billed, and the net layer decides that.)"""
    from agentcli.core.assemble import MessageBuilder
    from tests.fakes.script import ToolCall

    calls = [ToolCall("Read", {"file_path": "a_long_file_name.py"})] if with_tool else []
    first_text = "ab" if with_tool else "abcdefghijklmnop"
    fake_llm.push(Reply(text=first_text, chunk_size=2, tool_calls=calls, args_chunk_size=3,
                        fault=Fault("stream_error", 529, "Overloaded", after_events=7 if with_tool else 5)),
                  Reply(text="second try", tool_calls=calls))
    url = fake_llm.url if name == "anthropic" else fake_llm.openai_url
    p = make_provider(ProviderConfig(name, base_url=url, max_retries=3, **FAST))
    events = collect(p, request())
    retries = [e for e in events if isinstance(e, ApiRetry)]
    assert len(retries) == 1 and retries[0].discarded and len(fake_llm.requests) == 2
    before = events[: events.index(retries[0])]
    if with_tool:  # the cut fell inside the tool call's arguments
        assert any(isinstance(e, ToolCallStart) for e in before) and not any(isinstance(e, ToolCallEnd) for e in before)
    builder = MessageBuilder()
    for ev in events:
        builder.feed(ev)
    msg = builder.message()
    assert msg.text == "second try"
    assert [(c.name, c.input) for c in msg.tool_uses] == [(c.name, c.args) for c in calls]


def test_no_retries_when_disabled(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault.server_error()))
    p = make_provider(ProviderConfig("anthropic", base_url=fake_llm.url, max_retries=0))
    assert not isinstance(p, RetryingProvider)
    _, err = collect_until_error(p, request())
    assert isinstance(err, UnavailableError)


def test_backoff_is_exponential_with_jitter_and_capped() -> None:
    c = ProviderConfig("x", retry_base_delay_s=1.0, retry_max_delay_s=5.0)
    err = UnavailableError("x")
    assert [backoff_delay(n, err, c, lambda: 0.0) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    assert backoff_delay(2, err, c, lambda: 1.0) == 1.5
    rng = random.Random(1)
    assert all(0.75 <= backoff_delay(1, err, c, rng.random) <= 1.0 for _ in range(50))
    assert backoff_delay(1, RateLimitError("x", retry_after=2.5), c, lambda: 0.5) == 2.5


def test_usage_before_failure_does_not_count_as_output() -> None:
    """An attempt that only reported usage is retried; sleeps go through the injected sleep."""
    attempts = 0
    slept: list[float] = []

    async def flaky() -> AsyncIterator[StreamEvent]:
        nonlocal attempts
        attempts += 1
        yield UsageReport(Usage(5))
        if attempts < 3:
            raise OverloadedError("busy")
        yield TextDelta("ok")

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    async def run() -> list[StreamEvent]:
        return [e async for e in stream_with_retries(flaky, cfg(retry_base_delay_s=1, retry_max_delay_s=9),
                                                     sleep=fake_sleep, rng=lambda: 0.0)]

    events = asyncio.run(run())
    assert attempts == 3 and slept == [1.0, 2.0]
    assert [type(e).__name__ for e in events] == ["UsageReport", "ApiRetry", "UsageReport", "ApiRetry",
                                                  "UsageReport", "TextDelta"]


def test_non_provider_errors_pass_through() -> None:
    async def broken() -> AsyncIterator[StreamEvent]:
        raise KeyError("bug")
        yield TextDelta("unreachable")

    async def run() -> None:
        async for _ in stream_with_retries(broken, cfg()):
            pass

    with pytest.raises(KeyError):
        asyncio.run(run())
    assert issubclass(OverloadedError, ProviderError)


def test_retry_after_forms_and_redaction() -> None:
    from email.utils import formatdate

    from agentcli.net.errors import retry_after_s
    from agentcli.redact import redact

    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"retry-after": "3"}) == 3.0
    assert 25 < (retry_after_s({"retry-after": formatdate(time.time() + 30, usegmt=True)}) or 0) <= 30
    assert retry_after_s({"retry-after": "soon"}) is None and retry_after_s({}) is None
    text = "bad key sk-ant-api03-abcdefghijkl and my-own-secret and AIzaSyA1234567890123456789012345"
    assert redact(text, ["my-own-secret", None, ""]) == "bad key [REDACTED] and [REDACTED] and [REDACTED]"
