"""`include_hook_events` (`--include-hook-events`): hook lifecycle lines (`hook_started`, `hook_response`, the SDK's
HookEventMessage) in stream-json only when it is set, as Claude Code does; the hooks run either way."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import HookEventMessage, HookMatcher, ResultMessage, query

from tests.cli.helpers import agentcli, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import MODEL, make_sdk


async def run(options: Any) -> list[Any]:
    return [m async for m in query(prompt="read notes.txt", options=options)]


@pytest.mark.parametrize("include", [True, False])
def test_hook_events_reach_the_sdk_only_when_asked(include: bool, tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    seen: list[str] = []

    async def pre(data: Any, tool_use_id: str | None, ctx: Any) -> Any:
        seen.append(data["tool_name"])
        return {}

    command = {"type": "command", "command": "echo checked"}
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "notes.txt"})]), Reply(text="alpha"))
    options = sdk.options(include_hook_events=include, hooks={"PreToolUse": [HookMatcher("Read", [pre])]},
                          settings=json.dumps({"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [command]}]}}))
    messages = asyncio.run(run(options))
    events = [m for m in messages if isinstance(m, HookEventMessage)]
    assert seen == ["Read"] and isinstance(messages[-1], ResultMessage) and messages[-1].result == "alpha"
    if include:
        assert {(e.subtype, e.hook_event_name) for e in events} >= {("hook_started", "PostToolUse"),
                                                                    ("hook_response", "PostToolUse")}
        assert any(e.data.get("stdout") == "checked\n" for e in events)
    else:
        assert events == []


def test_p_stream_json_shows_hooks_only_with_the_flag(tmp_path: Path, fake_llm: FakeLLM) -> None:
    hooks = json.dumps({"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [
        {"type": "command", "command": "echo seen"}]}]}})
    (tmp_path / "a.txt").write_text("a\n")
    subtypes = []
    for extra in ([], ["--include-hook-events"]):
        fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]), Reply(text="done"))
        run_ = agentcli(["-p", "read a.txt", "--output-format", "stream-json", "--verbose", "--model", MODEL,
                         "--settings", hooks, *extra], tmp_path, provider_env(fake_llm, MODEL))
        assert run_.status == 0, run_.stderr
        subtypes.append({json.loads(x).get("subtype") for x in run_.stdout.splitlines()})
    assert not {"hook_started", "hook_response"} & subtypes[0]
    assert {"hook_started", "hook_response"} <= subtypes[1]
