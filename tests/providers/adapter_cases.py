"""Shared cases for the adapter tests: the three-tool task through the real agent loop, the round-trip
replies, fault scripts, and a normalizer that makes event streams comparable across providers (no ids)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcli.core.events import (
    AgentEvent,
    ApiRetry,
    AssistantMessage,
    MessageStop,
    RunFinished,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolFinished,
    UsageReport,
)
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import DenyingApprover, SimplePolicy
from agentcli.errors import ProviderError, ProviderTimeoutError, RateLimitError, StreamError, UnavailableError
from agentcli.llm.messages import Message, ToolUseBlock
from agentcli.providers.base import ModelRequest, Provider, ProviderConfig
from agentcli.providers.retry import RetryingProvider
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from tests.fakes import FakeLLM, Fault, Reply, ToolCall, Usage

Norm = list[tuple[Any, ...]]
_ID = re.compile(r"\b(toolu|call|fc|msg|rs|resp)_[A-Za-z0-9_]+")


def three_tool_replies(path: Path) -> list[Reply]:
    """Read → Edit → Bash → answer, with thinking before the first call and one-character argument chunks."""
    f = str(path)
    return [
        Reply(thinking="I should look at the file first.", text="Reading it.", args_chunk_size=1,
              tool_calls=[ToolCall("Read", {"file_path": f})], usage=Usage(100, 20)),
        Reply(text="Now the edit.", tool_calls=[ToolCall("Edit", {"file_path": f, "old_string": "hello",
                                                                   "new_string": "héllo 🌍"})],
              usage=Usage(150, 30)),
        Reply(tool_calls=[ToolCall("Bash", {"command": f"cat {f}"})], usage=Usage(200, 10)),
        Reply(text="Done: it says héllo 🌍.", usage=Usage(250, 12)),
    ]


def round_trip_replies() -> list[Reply]:
    """Parallel calls with tiny chunks, empty text, unicode, thinking before tool use."""
    return [
        Reply(thinking="Two files at once.", args_chunk_size=1, usage=Usage(10, 7),
              tool_calls=[ToolCall("Read", {"file_path": "/a/ü.txt"}), ToolCall("Read", {"file_path": "/b"})]),
        Reply(text="", usage=Usage(12, 1)),
        Reply(text="日本語 ✓ «quotes» \"esc\" \\ 🎉", chunk_size=1, usage=Usage(14, 9)),
    ]


def normalize(events: list[AgentEvent] | list[StreamEvent]) -> Norm:
    """Merged deltas, calls as (name, args), usage as numbers, ids removed: equal across providers."""
    out: Norm = []
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    usage: tuple[Any, ...] | None = None
    for e in events:
        match e:
            case TextDelta(t) | ThinkingDelta(t):
                kind = "text" if isinstance(e, TextDelta) else "thinking"
                if out and out[-1][0] == kind:
                    out[-1] = (kind, out[-1][1] + t)
                else:
                    out.append((kind, t))
            case ToolCallStart(i, _, name):
                names[i], args[i] = name, ""
            case ToolCallDelta(i, a):
                args[i] += a
            case ToolCallEnd(i):
                out.append(("call", names[i], json.loads(args[i])))
            case UsageReport(u):
                usage = ("usage", u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens)
            case MessageStop(reason, _):
                # Adapters report usage at different moments; the last figure before the stop is what counts.
                if usage is not None:
                    out.append(usage)
                    usage = None
                out.append(("stop", reason))
            case ApiRetry(attempt, _, _, code, _, status):
                out.append(("retry", attempt, code, status))
            case AssistantMessage(message, _, _, stop, partial):
                out.append(("assistant", _strip_ids(message), stop, partial))
            case ToolFinished(_, name, input_, result, _, _):
                out.append(("tool", name, json.dumps(input_, sort_keys=True), result.is_error))
            case RunFinished(r):
                out.append(("result", r.subtype, r.result, r.num_turns, r.usage.input_tokens, r.usage.output_tokens))
    return out


def _strip_ids(m: Message) -> Any:
    return [b for b in (_ID.sub("ID", json.dumps(x, ensure_ascii=False)) for x in m.to_dict()["content"])]


def run_agent(provider: Provider, model: str, root: Path, prompt: str = "fix the file") -> tuple[Norm, Agent]:
    agent = Agent(
        provider=provider,
        registry=ToolRegistry(["Read", "Edit", "Bash"]),
        policy=SimplePolicy("bypassPermissions"),
        approver=DenyingApprover(),
        ctx=ToolContext(project_root=root),
        options=AgentOptions(model=model, provider_name=provider.name, max_turns=8),
    )

    async def go() -> list[AgentEvent]:
        try:
            return [ev async for ev in agent.run(prompt)]
        finally:
            await agent.aclose()

    return normalize(asyncio.run(go())), agent


def assert_paired(agent: Agent) -> None:
    for i, m in enumerate(agent.messages):
        if m.role == "assistant" and m.tool_uses:
            ids = [getattr(b, "tool_use_id", None) for b in agent.messages[i + 1].content]
            assert sorted(str(x) for x in ids if x) == sorted(c.id for c in m.tool_uses)
            assert len({c.id for c in m.tool_uses}) == len(m.tool_uses)


def stream_once(provider: Provider, request: ModelRequest) -> tuple[Norm, BaseException | None]:
    """One request's events (normalized) and the error it ended with, if any."""
    events: list[StreamEvent] = []

    async def go() -> BaseException | None:
        try:
            async for ev in provider.stream(request):
                events.append(ev)
        except Exception as err:
            return err
        finally:
            await provider.aclose()
        return None

    err = asyncio.run(go())
    return normalize(events), err


def replay_requests(make: Callable[[], Provider], model: str, replies: list[Reply]) -> list[Norm]:
    """Send one request per reply, feeding each answer (and fake tool results) back, as the loop would."""
    from agentcli.llm.messages import TextBlock, ThinkingBlock, ToolResultBlock

    messages: list[Message] = [Message.user("go")]
    results: list[Norm] = []
    for _ in replies:
        norm, err = stream_once(make(), ModelRequest(model, "sys", tuple(messages), TOOL_SPECS, max_tokens=256))
        assert err is None, err
        results.append(norm)
        blocks: list[Any] = []
        for item in norm:
            if item[0] == "thinking":
                blocks.append(ThinkingBlock(item[1]))
            elif item[0] == "text" and item[1]:
                blocks.append(TextBlock(item[1]))
            elif item[0] == "call":
                blocks.append(ToolUseBlock(f"call_{len(messages)}_{len(blocks)}", item[1], item[2]))
        messages.append(Message("assistant", tuple(blocks)))
        calls = [b for b in blocks if isinstance(b, ToolUseBlock)]
        if calls:
            messages.append(Message("user", tuple(ToolResultBlock(c.id, f"contents of {c.input}") for c in calls)))
        else:
            messages.append(Message.user("and now?"))
    return results


def _specs() -> tuple[Any, ...]:
    from agentcli.llm.messages import ToolSpec

    schema = {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"],
              "additionalProperties": False, "$schema": "http://json-schema.org/draft-07/schema#"}
    bash = {"type": "object", "properties": {"command": {"type": "string"}}}
    return (ToolSpec("Read", "Read a file", schema), ToolSpec("Bash", "Run a command", bash))


TOOL_SPECS = _specs()


RETRYABLE_FAULTS = [
    (Fault.rate_limit(retry_after=0), "rate_limit"),
    (Fault.server_error(), "unavailable"),
    (Fault.overloaded(), "overloaded"),
]
# Fault("drop_before") is deliberately absent: the server had the request, so it is not sent again
# (tests/providers/test_no_replay.py).
MID_STREAM_FAULTS = [("drop_mid", UnavailableError), ("malformed", StreamError), ("stream_error", ProviderError)]


def check_retried(make: Callable[[], Any], request: ModelRequest, fake: FakeLLM, fault: Fault, code: str) -> None:
    fake.push(Reply(fault=fault), Reply(text="fine"))
    p = make()
    norm, err = stream_once(RetryingProvider(p, p.cfg), request)
    assert err is None, err
    assert norm[0][:3] == ("retry", 1, code)
    assert ("text", "fine") in norm


def check_exhausted(make: Callable[[], Any], request: ModelRequest, fake: FakeLLM) -> None:
    fake.push(*[Reply(fault=Fault.rate_limit(0))] * 3)
    p = make()
    norm, err = stream_once(RetryingProvider(p, replace(p.cfg, max_retries=2)), request)
    assert isinstance(err, RateLimitError) and err.exit_status == 75, err
    assert [n[1] for n in norm if n[0] == "retry"] == [1, 2]


def check_mid_stream(make: Callable[[], Any], request: ModelRequest, fake: FakeLLM, kind: str,
                     error: type[Exception], after: int) -> None:
    """`after` frames of a reply whose text comes 4 characters a frame arrive, then the fault."""
    fault = Fault(kind, after_events=after, message="boom", error_type="server_error")  # type: ignore[arg-type]
    fake.push(Reply(text="abcdefghijklmnopqrstuvwxyz", chunk_size=4, fault=fault), Reply(text="again"))
    p = make()
    norm, err = stream_once(RetryingProvider(p, p.cfg), request)
    if err is None:  # a retryable cut (dropped, server error) is retried; the retry voids the partial output
        assert norm[0] == ("text", "abcdefgh") and norm[1][0] == "retry" and ("text", "again") in norm
        return
    assert isinstance(err, error) and not err.retryable, err
    assert norm == [("text", "abcdefgh")]


def check_slow_headers(make: Callable[[], Any], request: ModelRequest, fake: FakeLLM) -> None:
    fake.push(Reply(text="late", fault=Fault("slow_first_byte", delay_s=2)))
    p = make()
    p = type(p)(replace(p.cfg, request_timeout_s=0.3, max_retries=0))
    _, err = stream_once(RetryingProvider(p, p.cfg), request)
    assert isinstance(err, ProviderTimeoutError) and err.exit_status == 75, err


def three_tool_run(root: Path, fake: FakeLLM, make: Callable[[FakeLLM], Any], model: str) -> Norm:
    """The three-tool task through `make(fake)` and the agent loop, checked; normalized events without the
    assistant messages' raw content (signatures differ by provider)."""
    target = root / "f.txt"
    target.write_text("hello\n")
    fake.push(*three_tool_replies(target))
    p = make(fake)
    norm, agent = run_agent(RetryingProvider(p, p.cfg), model, root)
    assert fake.violations == []
    assert target.read_text() == "héllo 🌍\n"
    assert_paired(agent)
    return [n if n[0] != "assistant" else n[:1] + n[2:] for n in norm]


def anthropic_reference(root: Path) -> Norm:
    from agentcli.providers.anthropic import AnthropicProvider

    with FakeLLM() as fake:
        return three_tool_run(root, fake, lambda f: AnthropicProvider(
            ProviderConfig("anthropic", base_url=f.url, api_key="test-key-1")), "claude-fake")


def add(norm: list[tuple[object, ...]], kind: str, text: str) -> None:
    if norm and norm[-1][0] == kind:
        norm[-1] = (kind, str(norm[-1][1]) + text)
    else:
        norm.append((kind, text))
