"""Issue 18, acceptance 2: `ClaudeSDKClient` — three turns in one session, `interrupt()` mid-stream,
`set_permission_mode()`, `set_model()` — plus the status requests."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeSDKClient, ResultMessage, StreamEvent

from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import Sdk, make_sdk


async def turn(client: ClaudeSDKClient, prompt: str) -> list[Any]:
    await client.query(prompt)
    return [m async for m in client.receive_response()]


async def three_turns(sdk: Sdk) -> list[ResultMessage]:
    results: list[ResultMessage] = []
    async with ClaudeSDKClient(sdk.options()) as client:
        first = await turn(client, "say hi")
        await client.set_permission_mode("acceptEdits")
        second = await turn(client, "write the plan")
        await client.set_model("claude-haiku-4-5")
        third = await turn(client, "and now?")
        await client.set_model(None)  # back to the session's first model
        fourth = await turn(client, "and back")
        for msgs in (first, second, third, fourth):
            assert isinstance(msgs[-1], ResultMessage)
            results.append(msgs[-1])
    return results


def test_three_turns_one_session_with_mode_and_model_changes(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(
        Reply(text="hi"),
        # in acceptEdits a Write needs nobody's approval (in default mode, with nobody to ask, it is denied)
        Reply(tool_calls=[ToolCall("Write", {"file_path": "plan.md", "content": "the plan\n"})]),
        Reply(text="written"),
        Reply(text="from haiku"),
        Reply(text="from sonnet again"),
    )
    results = asyncio.run(three_turns(sdk))
    assert [r.result for r in results] == ["hi", "written", "from haiku", "from sonnet again"]
    assert len({r.session_id for r in results}) == 1
    assert all(not r.is_error and not r.permission_denials for r in results)
    assert (sdk.proj / "plan.md").read_text() == "the plan\n"
    models = [r.body["model"] for r in fake_llm.requests]
    assert models == ["claude-sonnet-4-5"] * 3 + ["claude-haiku-4-5", "claude-sonnet-4-5"]
    assert "say hi" in sdk.sent(3) and "written" in sdk.sent(3)  # one conversation throughout


async def interrupted(sdk: Sdk, fake: FakeLLM) -> tuple[list[Any], list[Any]]:
    async with ClaudeSDKClient(sdk.options(include_partial_messages=True)) as client:
        await client.query("count to a million, slowly")
        seen: list[Any] = []
        async for m in client.receive_response():
            seen.append(m)
            if isinstance(m, StreamEvent) and m.event["type"] == "message_start":
                # the turn is under way and its request has reached the server, which holds the reply back
                assert await asyncio.to_thread(fake.wait_for_requests, 1, 30)
                await client.interrupt()
        after = await turn(client, "never mind: a joke instead")
    return seen, after


def test_interrupt_mid_stream_ends_the_turn_and_the_session_goes_on(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="1, 2, 3", fault=Fault("slow_first_byte", delay_s=60)), Reply(text="A joke."))
    seen, after = asyncio.run(interrupted(sdk, fake_llm))
    stopped = seen[-1]
    assert isinstance(stopped, ResultMessage)
    assert (stopped.subtype, stopped.is_error) == ("error_during_execution", True)
    assert stopped.errors == ["[Request interrupted by user]"]
    last = after[-1]
    assert isinstance(last, ResultMessage) and not last.is_error and last.result == "A joke."
    assert last.session_id == stopped.session_id
    sent = sdk.sent(1)
    # as Claude Code: the interrupted prompt, then the marker, then the new prompt (not one merged prompt)
    assert sent.index("count to a million") < sent.index("[Request interrupted by user]") < sent.index("never mind")


async def status(sdk: Sdk) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    async with ClaudeSDKClient(sdk.options()) as client:
        await turn(client, "hello")
        return await client.get_mcp_status(), dict(await client.get_context_usage()), await client.get_server_info()


def test_status_requests_answer(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="hello back"))
    mcp, usage, info = asyncio.run(status(sdk))
    assert mcp == {"mcpServers": []}
    assert usage["model"] == "claude-sonnet-4-5" and usage["totalTokens"] > 0 and usage["rawMaxTokens"] == 200_000
    assert info is not None and info["models"][0]["value"] == "claude-sonnet-4-5"


async def edit_then_rewind(sdk: Sdk) -> tuple[str, list[Any]]:
    from claude_agent_sdk import UserMessage

    options = sdk.options(permission_mode="acceptEdits", enable_file_checkpointing=True,
                          extra_args={"replay-user-messages": None})
    async with ClaudeSDKClient(options) as client:
        await turn(client, "write v1")
        second = await turn(client, "now make it v2")
        echoed = [m for m in second if isinstance(m, UserMessage) and isinstance(m.content, str)]
        assert [m.content for m in echoed] == ["now make it v2"] and echoed[0].uuid
        between = (sdk.proj / "doc.txt").read_text()
        await client.rewind_files(echoed[0].uuid)
        return between, second


def test_rewind_files_to_a_user_message(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("Write", {"file_path": "doc.txt", "content": "v1\n"})]),
                  Reply(text="wrote v1"),
                  Reply(tool_calls=[ToolCall("Write", {"file_path": "doc.txt", "content": "v2\n"})]),
                  Reply(text="wrote v2"))
    between, second = asyncio.run(edit_then_rewind(sdk))
    assert between == "v2\n"
    assert (sdk.proj / "doc.txt").read_text() == "v1\n"  # as it was when the second prompt arrived
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "wrote v2"


async def compacting(sdk: Sdk) -> list[Any]:
    async with ClaudeSDKClient(sdk.options()) as client:
        await turn(client, "the codename is heron")
        return await turn(client, "/compact keep the codename")


def test_compact_command_compacts_and_ends_with_a_result(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from claude_agent_sdk import SystemMessage

    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="Noted: heron."), Reply(text="Summary: the codename is heron."))
    messages = asyncio.run(compacting(sdk))
    boundary = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "compact_boundary")
    assert boundary.data["compact_metadata"]["trigger"] == "manual"
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error
    assert "keep the codename" in json.dumps(fake_llm.requests[1].body)  # the summariser was told the focus


async def verbatim(sdk: Sdk) -> list[Any]:
    async with ClaudeSDKClient(sdk.options(verbatim_prompts=True)) as client:
        out = await turn(client, "/compact keep the codename")
        return out + await turn(client, "/state now")  # a custom command's name: sent as written too


def test_a_client_composed_prompt_is_sent_as_written_not_run_as_a_command(
        tmp_path: Path, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture) -> None:
    """verbatim_prompts: the SDK trusts an engine whose init reports Claude Code 2.1.248+ to honour it (and
    warns otherwise); agentcli reports the protocol release it speaks, so it must."""
    from claude_agent_sdk import SystemMessage

    sdk = make_sdk(tmp_path, fake_llm, {"notes.txt": "alpha\n",
                                        ".claude/commands/state.md": "State: !`touch ran-the-command`\n"})
    fake_llm.push(Reply(text="That reads like a command; I will not run it."), Reply(text="Same here."))
    with caplog.at_level(logging.WARNING, logger="claude_agent_sdk"):
        messages = asyncio.run(verbatim(sdk))
    assert not any(isinstance(m, SystemMessage) and m.subtype == "compact_boundary" for m in messages)
    assert "/compact keep the codename" in sdk.sent(0)
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert results[0].result.startswith("That reads like a command")
    assert '"/state now"' in sdk.sent(1) and not (sdk.proj / "ran-the-command").exists()
    assert caplog.records == []  # neither "too old" nor "ignores verbatim_prompts"


async def mode_round_trip(sdk: Sdk, asked: list[str]) -> list[ResultMessage]:
    from claude_agent_sdk import PermissionResultAllow, ToolPermissionContext

    async def can_use_tool(name: str, args: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        asked.append(args.get("file_path", name))
        return PermissionResultAllow()

    results: list[ResultMessage] = []
    async with ClaudeSDKClient(sdk.options(can_use_tool=can_use_tool)) as client:
        for mode, prompt in (("default", "write a"), ("dontAsk", "write b"), ("default", "write c")):
            await client.set_permission_mode(mode)
            msgs = await turn(client, prompt)
            assert isinstance(msgs[-1], ResultMessage)
            results.append(msgs[-1])
    return results


def test_dont_ask_entered_and_left_mid_session_denies_without_asking(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(*(r for name in ("a", "b", "c") for r in (
        Reply(tool_calls=[ToolCall("Write", {"file_path": f"{name}.txt", "content": "x\n"})]), Reply(text="ok"))))
    asked: list[str] = []
    results = asyncio.run(mode_round_trip(sdk, asked))
    assert [Path(p).name for p in asked] == ["a.txt", "c.txt"]  # dontAsk asked nobody
    assert [(sdk.proj / f"{n}.txt").exists() for n in "abc"] == [True, False, True]
    assert [len(r.permission_denials or []) for r in results] == [0, 1, 0]
    assert "dontAsk mode" in sdk.sent(3)  # the model read why
