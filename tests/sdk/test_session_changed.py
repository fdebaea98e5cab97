"""Issue 25: a change of the session's state is a line on the stream. The real Agent SDK's
`set_permission_mode()` and `set_model()` between turns show as `system`/`session_changed` lines at the start of
the next turn, which the SDK's parser hands over as plain `SystemMessage`s (agentcli's own subtype)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, ResultMessage, SystemMessage

from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import Sdk, make_sdk


async def turns(sdk: Sdk) -> list[list[Any]]:
    async def turn(client: ClaudeSDKClient, prompt: str) -> list[Any]:
        await client.query(prompt)
        return [m async for m in client.receive_response()]

    async with ClaudeSDKClient(sdk.options()) as client:
        first = await turn(client, "hi")
        await client.set_permission_mode("plan")
        second = await turn(client, "plan it")
        await client.set_model("claude-haiku-4-5")
        third = await turn(client, "and now?")
    return [first, second, third]


def changes(messages: list[Any]) -> list[dict[str, Any]]:
    return [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "session_changed"]


def test_set_permission_mode_shows_as_a_session_changed_line(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="hello"), Reply(text="a plan"), Reply(text="from haiku"))
    first, second, third = asyncio.run(turns(sdk))
    assert all(isinstance(msgs[-1], ResultMessage) and not msgs[-1].is_error for msgs in (first, second, third))
    assert changes(first) == []
    [mode] = changes(second)
    assert (mode["what"], mode["permissionMode"], mode["model"]) == ("mode", "plan", "claude-sonnet-4-5")
    assert mode["preset"] is None and mode["session_id"] == second[-1].session_id
    init = next(i for i, m in enumerate(second) if isinstance(m, SystemMessage) and m.subtype == "init")
    assert second.index(next(m for m in second if isinstance(m, SystemMessage)
                             and m.subtype == "session_changed")) == init + 1  # first thing after init
    [model] = changes(third)
    assert (model["what"], model["permissionMode"], model["model"]) == ("model", "plan", "claude-haiku-4-5")
