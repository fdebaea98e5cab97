"""A "this session" approval is stored with the session and comes back on --resume, and only there."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from agentcli.assembly.runtime import build
from agentcli.core.permissions import Approval, DenyingApprover
from agentcli.tools.registry import load_tool
from tests.cli.helpers import in_process_project
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.permissions.test_loop import Answering


def test_session_rule_survives_resume(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.py": "a = 1\n"})
    yes = Answering(Approval("allow", remember="Bash(touch *)", scope="session"))
    bash = load_tool("Bash")

    async def first() -> str:
        built = await build(settings, yes)
        fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="ok"))
        async for _ in built.agent.run("make it"):
            pass
        await built.agent.aclose()
        return built.agent.session_id

    async def policy_behavior(s: object) -> str:
        built = await build(s, DenyingApprover())  # type: ignore[arg-type]
        try:
            return built.agent.policy.check(bash, {"command": "touch other.txt"}).behavior
        finally:
            await built.agent.aclose()

    session_id = asyncio.run(first())
    assert (proj / "made.txt").exists() and len(yes.asked) == 1
    resumed = replace(settings, session=replace(settings.session, resume=session_id))
    assert asyncio.run(policy_behavior(resumed)) == "allow"
    assert asyncio.run(policy_behavior(settings)) == "ask"  # a new session does not inherit it
