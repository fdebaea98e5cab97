"""The agent loop, driven by an in-process scripted provider and real tool objects."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentcli.core.events import AgentEvent, PermissionDecision, RunFinished, ToolFinished
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import DenyingApprover, SimplePolicy
from agentcli.errors import RateLimitError
from agentcli.llm.messages import ToolResultBlock, ToolUseBlock
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from tests.core.scripted import EchoTool, Say, ScriptedProvider, TouchTool


def make_agent(tmp_path: Path, script: list[Say], mode: str = "default", **opts: Any) -> Agent:
    return Agent(
        provider=ScriptedProvider(script),
        registry=ToolRegistry([], extra=[EchoTool(), TouchTool()]),
        policy=SimplePolicy(mode),
        approver=DenyingApprover(),
        ctx=ToolContext(project_root=tmp_path),
        options=AgentOptions(model="m", provider_name="scripted", **opts),
    )


def run(agent: Agent, prompt: str) -> list[AgentEvent]:
    async def go() -> list[AgentEvent]:
        return [ev async for ev in agent.run(prompt)]

    return asyncio.run(go())


def assert_paired(agent: Agent) -> None:
    """Every tool call is answered by exactly one result in the next message."""
    for i, m in enumerate(agent.messages):
        if m.role == "assistant" and m.tool_uses:
            nxt = agent.messages[i + 1]
            ids = [b.tool_use_id for b in nxt.content if isinstance(b, ToolResultBlock)]
            assert sorted(ids) == sorted(c.id for c in m.tool_uses)


def test_text_reply_ends_with_success(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("hello there")])
    events = run(agent, "hi")
    result = events[-1]
    assert isinstance(result, RunFinished)
    assert result.result.subtype == "success" and result.result.result == "hello there"
    assert result.result.num_turns == 1 and result.result.exit_status == 0


def test_tool_call_then_answer(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("let me", [("Echo", {"text": "a"})]), Say("done")])
    events = run(agent, "go")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert finished[0].result.content == "echo: a" and not finished[0].result.is_error
    assert isinstance(events[-1], RunFinished) and events[-1].result.num_turns == 2
    assert_paired(agent)


def test_bad_calls_become_error_results_and_run_goes_on(tmp_path: Path) -> None:
    calls: list[tuple[str, dict[str, Any] | str]] = [
        ("Nope", {}), ("Echo", "{not json"), ("Echo", {"text": 3}), ("Echo", {"text": "x", "extra": 1}),
    ]
    agent = make_agent(tmp_path, [Say("", calls), Say("recovered")])
    events = run(agent, "go")
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [r.is_error for r in results] == [True, True, True, True]
    assert "Unknown tool 'Nope'" in results[0].content
    assert "Invalid tool arguments" in results[1].content
    assert "Invalid arguments for Echo" in results[2].content
    assert isinstance(events[-1], RunFinished) and events[-1].result.result == "recovered"
    assert_paired(agent)


def test_headless_denial_is_reported_and_nothing_runs(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("", [("Touch", {"text": "f"})]), Say("could not")])
    events = run(agent, "go")
    assert not (tmp_path / "f").exists()
    decision = next(e for e in events if isinstance(e, PermissionDecision))
    assert decision.behavior == "deny"
    end = events[-1]
    assert isinstance(end, RunFinished)
    assert end.result.permission_denials[0]["tool_name"] == "Touch" and end.result.exit_status == 3
    sent = agent.provider.requests[1].messages[-1]  # type: ignore[attr-defined]
    assert "not granted" in sent.content[0].content


def test_accept_edits_runs_file_tool(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("", [("Touch", {"text": "f"})]), Say("ok")], mode="acceptEdits")
    run(agent, "go")
    assert (tmp_path / "f").exists()


def test_plan_mode_never_runs_changing_tools(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("", [("Touch", {"text": "f"})]), Say("ok")], mode="plan")
    run(agent, "go")
    assert not (tmp_path / "f").exists()


def test_max_turns_stops_with_error_subtype(tmp_path: Path) -> None:
    script = [Say("", [("Echo", {"text": str(i)})]) for i in range(5)]
    agent = make_agent(tmp_path, script, max_turns=2)
    end = run(agent, "loop")[-1]
    assert isinstance(end, RunFinished)
    assert end.result.subtype == "error_max_turns" and end.result.exit_status == 4
    assert end.result.num_turns == 2
    assert_paired(agent)


def test_tool_call_cap_per_turn(tmp_path: Path) -> None:
    calls: list[tuple[str, dict[str, Any] | str]] = [("Echo", {"text": str(i)}) for i in range(4)]
    agent = make_agent(tmp_path, [Say("", calls)], max_tool_calls_per_turn=3)
    end = run(agent, "many")[-1]
    assert isinstance(end, RunFinished) and end.result.error_code == "max_tool_calls"
    assert_paired(agent)


def test_budget_guard(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("", [("Echo", {"text": "a"})]), Say("x")],
                       max_budget_usd=0.01, cost_fn=lambda m, u: 0.02)
    end = run(agent, "spend")[-1]
    assert isinstance(end, RunFinished) and end.result.subtype == "error_max_budget_usd"
    assert_paired(agent)


def test_provider_error_mid_stream_keeps_partial_text(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("partial answer", fail_after=RateLimitError("slow down"))])
    end = run(agent, "go")[-1]
    assert isinstance(end, RunFinished)
    assert end.result.is_error and end.result.error_code == "rate_limit" and end.result.exit_status == 75
    assert agent.messages[-1].role == "assistant" and agent.messages[-1].text == "partial answer"


def test_cancel_mid_tools_leaves_valid_transcript(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [Say("", [("Echo", {"text": "a"})]), Say("never")])

    async def go() -> None:
        gen = agent.run("go")
        async for ev in gen:
            if isinstance(ev, ToolFinished):
                break
        await gen.aclose()

    asyncio.run(go())
    assert isinstance(agent.messages[1].content[0], ToolUseBlock)
    assert_paired(agent)


def test_missing_usage_is_estimated_with_tiktoken(tmp_path: Path) -> None:
    from agentcli.core.tokens import count_tokens
    from agentcli.llm.messages import Usage

    assert count_tokens("hello world") == 2  # cl100k_base, not the 4-characters rule (which gives 3)
    agent = make_agent(tmp_path, [Say("hello world", usage=Usage())])
    end = run(agent, "hi")[-1]
    assert isinstance(end, RunFinished)
    usage = end.result.usage
    assert usage.estimated and usage.input_tokens > 0 and usage.output_tokens > 0


def test_adapter_notices_pass_through_wrappers_to_the_front_end(tmp_path: Path) -> None:
    from agentcli.core.events import Notice

    text = "num_ctx=2048 is smaller than the prompt — raise providers.ollama.num_ctx"

    class Warning(ScriptedProvider):
        async def stream(self, request):  # type: ignore[no-untyped-def]
            if len(self.requests) == 0:
                yield Notice("warning", text)
            async for ev in super().stream(request):
                yield ev

    class Wrapper:
        name = "wrapped"

        def __init__(self, inner: ScriptedProvider) -> None:
            self.inner = inner

        def stream(self, request):  # type: ignore[no-untyped-def]
            return self.inner.stream(request)

        async def aclose(self) -> None:
            return None

    inner = Warning([Say("", [("Echo", {"text": "a"})]), Say("done")])
    agent = make_agent(tmp_path, [])
    agent.provider = Wrapper(inner)
    events = run(agent, "go")
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.text for n in notices] == [text] and notices[0].level == "warning"
    assert isinstance(events[-1], RunFinished) and events[-1].result.result == "done"


def test_closing_the_run_mid_stream_keeps_the_partial_text(tmp_path: Path) -> None:
    from agentcli.core.events import TextDelta

    agent = make_agent(tmp_path, [Say("a fairly long answer that is cut")])

    async def go() -> None:
        gen = agent.run("go")
        async for ev in gen:
            if isinstance(ev, TextDelta):
                break
        await gen.aclose()
        # Kept at once, not later when the event loop finalizes abandoned generators.
        partial, marker = agent.messages[-2:]
        assert partial.role == "assistant" and partial.text == "a f"  # the scripted provider streams 3 characters
        assert marker.role == "user" and marker.text == "[Request interrupted by user]"  # as Claude Code writes it

    asyncio.run(go())
