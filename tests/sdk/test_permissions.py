"""Issue 18, acceptance 3: the SDK's `can_use_tool` sees every call that needs approval, denies with a message
the model reads, rewrites input (still checked: schema, rules); a PreToolUse hook registered in code blocks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    ToolPermissionContext,
    query,
)

from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import make_sdk


async def prompt_stream(text: str) -> Any:
    # can_use_tool needs streaming input (the SDK's rule): one user message
    yield {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None,
           "session_id": ""}


async def run(prompt: str, options: Any) -> list[Any]:
    return [m async for m in query(prompt=prompt_stream(prompt), options=options)]


def tool_results(sent: str) -> list[dict[str, Any]]:
    return [b for m in json.loads(sent) if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"]


def test_can_use_tool_sees_each_ask_denies_with_a_message_and_rewrites(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm, {"notes.txt": "alpha\n"})
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Read", {"file_path": "notes.txt"}),  # read-only: allowed, never asked
                          ToolCall("Bash", {"command": "touch made.txt"})]),
        Reply(tool_calls=[ToolCall("Write", {"file_path": "out.txt", "content": "draft\n"})]),
        Reply(text="done"),
    )
    asked: list[tuple[str, dict[str, Any], str | None]] = []

    async def can_use_tool(name: str, args: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        asked.append((name, args, ctx.tool_use_id))
        if name == "Bash":
            return PermissionResultDeny(message="No shell today: use the file tools.")
        return PermissionResultAllow(updated_input={**args, "content": "final\n"})

    messages = asyncio.run(run("take notes", sdk.options(can_use_tool=can_use_tool)))
    assert [(n, a) for n, a, _ in asked] == [("Bash", {"command": "touch made.txt"}),
                                             ("Write", {"file_path": "out.txt", "content": "draft\n"})]
    assert all(tool_use_id for _, _, tool_use_id in asked)
    denied = [b for b in tool_results(sdk.sent(1)) if b.get("is_error")]
    assert len(denied) == 1 and "No shell today: use the file tools." in denied[0]["content"]
    assert (sdk.proj / "out.txt").read_text() == "final\n"  # the rewritten input is what ran
    assert not (sdk.proj / "made.txt").exists()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "done"
    assert [d["tool_name"] for d in result.permission_denials or []] == ["Bash"]


def test_a_rewritten_input_still_meets_the_rules_and_the_schema(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm, {"keep.txt": "precious\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch hi.txt"})]),
                  Reply(tool_calls=[ToolCall("Write", {"file_path": "a.txt", "content": "x"})]),
                  Reply(text="ok"))

    async def can_use_tool(name: str, args: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        if name == "Bash":
            return PermissionResultAllow(updated_input={"command": "rm keep.txt"})
        return PermissionResultAllow(updated_input={"file_path": "a.txt"})  # no content: not Write's schema

    asyncio.run(run("go", sdk.options(can_use_tool=can_use_tool, disallowed_tools=["Bash(rm:*)"])))
    assert (sdk.proj / "keep.txt").read_text() == "precious\n"
    first, second = tool_results(sdk.sent(1))[0], tool_results(sdk.sent(2))[-1]
    assert first.get("is_error") and "denied" in first["content"]
    assert second.get("is_error") and "Invalid arguments for Write" in second["content"]
    assert not (sdk.proj / "a.txt").exists()


def test_a_pre_tool_use_hook_registered_in_code_blocks_a_call(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm, {"keep.txt": "precious\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "rm keep.txt"})]), Reply(text="I left it."))
    inputs: list[dict[str, Any]] = []

    async def guard(data: Any, tool_use_id: str | None, ctx: Any) -> Any:
        inputs.append({**data, "tool_use_id_arg": tool_use_id})
        if "rm " in data["tool_input"].get("command", ""):
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                           "permissionDecisionReason": "rm is blocked by policy hook"}}
        return {}

    hooks: Any = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
    messages = asyncio.run(run("clean up", sdk.options(hooks=hooks, permission_mode="bypassPermissions")))
    assert (sdk.proj / "keep.txt").read_text() == "precious\n"
    assert len(inputs) == 1 and inputs[0]["hook_event_name"] == "PreToolUse"
    assert inputs[0]["tool_name"] == "Bash" and inputs[0]["tool_use_id_arg"] == inputs[0]["tool_use_id"]
    blocked = tool_results(sdk.sent(1))[0]
    assert blocked.get("is_error") and "rm is blocked by policy hook" in blocked["content"]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "I left it."


def test_hooks_in_code_add_context_and_fail_closed_when_asked(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch a.txt"}),
                                    ToolCall("Write", {"file_path": "b.txt", "content": "b"})]),
                  Reply(text="ok"))

    async def context(data: Any, tool_use_id: str | None, ctx: Any) -> Any:
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                       "additionalContext": "The codename is HERON."}}

    async def broken(data: Any, tool_use_id: str | None, ctx: Any) -> Any:
        raise RuntimeError("guard crashed")

    async def wrong(data: Any, tool_use_id: str | None, ctx: Any) -> Any:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "Deny"}}

    hooks: Any = {"UserPromptSubmit": [HookMatcher(hooks=[context])],
                  "PreToolUse": [HookMatcher(matcher="Bash", hooks=[broken], on_failure="block"),
                                 HookMatcher(matcher="Write", hooks=[wrong], on_failure="block")]}
    asyncio.run(run("go", sdk.options(hooks=hooks, permission_mode="bypassPermissions")))
    assert "The codename is HERON." in sdk.sent(0)
    bash, write = tool_results(sdk.sent(1))
    assert bash.get("is_error") and "guard crashed" in bash["content"]
    assert write.get("is_error") and "unknown permissionDecision 'Deny'" in write["content"]
    assert not (sdk.proj / "a.txt").exists() and not (sdk.proj / "b.txt").exists()


def test_deny_with_interrupt_stops_the_turn(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch a.txt"})]), Reply(text="never asked"))

    async def can_use_tool(name: str, args: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        return PermissionResultDeny(message="stop everything", interrupt=True)

    messages = asyncio.run(run("go", sdk.options(can_use_tool=can_use_tool)))
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert result.errors == ["[Request interrupted by user]"]
    assert len(fake_llm.requests) == 1 and not (sdk.proj / "a.txt").exists()


def test_a_hook_registered_in_code_also_guards_subagents(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm, {"keep.txt": "precious\n"})
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "clean", "prompt": "do the cleanup",
                                            "subagent_type": "general-purpose"})]),
        Reply(tool_calls=[ToolCall("Bash", {"command": "rm keep.txt"})], when="do the cleanup"),
        Reply(text="could not remove it", when="blocked in a subagent"),
        Reply(text="The subagent could not remove it."),
    )

    async def guard(data: Any, tool_use_id: str | None, ctx: Any) -> Any:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "blocked in a subagent too"}}

    hooks: Any = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
    messages = asyncio.run(run("clean up", sdk.options(hooks=hooks, permission_mode="bypassPermissions")))
    assert (sdk.proj / "keep.txt").read_text() == "precious\n"
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "The subagent could not remove it."
