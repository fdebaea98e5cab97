"""The Agent's command API: every change a front end makes goes through it and is recorded in the session."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import DenyingApprover, SimplePolicy
from agentcli.errors import UsageError
from agentcli.llm.messages import Message
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from tests.core.scripted import Say, ScriptedProvider


class RecordingSink:
    session_id = "s-1"

    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def message(self, message: Message, **meta: Any) -> str:
        return "m"

    def record(self, kind: str, data: dict[str, Any]) -> str:
        self.records.append((kind, data))
        return "r"

    async def checkpoint(self, tool_use_id: str, tool_name: str) -> None:
        return None

    def take_problems(self) -> list[str]:
        return []

    def end_turn(self) -> None:
        return None

    async def settle(self) -> None:
        return None

    def close(self) -> None:
        return None


class Closing(ScriptedProvider):
    closed = False

    async def aclose(self) -> None:
        self.closed = True


def agent(tmp_path: Path, sink: RecordingSink, provider: ScriptedProvider | None = None) -> Agent:
    return Agent(provider=provider or ScriptedProvider([]), registry=ToolRegistry(["Read"]),
                 policy=SimplePolicy("default"), approver=DenyingApprover(), ctx=ToolContext(project_root=tmp_path),
                 options=AgentOptions(model="m1", provider_name="p1"), sink=sink)


def test_set_mode_is_kept_by_the_policy_and_recorded(tmp_path: Path) -> None:
    sink = RecordingSink()
    a = agent(tmp_path, sink)
    a.set_mode("plan")
    assert a.mode == a.policy.mode == "plan" and "ExitPlanMode" in a.registry.enabled
    a.set_mode("plan")  # no change, no record
    assert sink.records == [("mode", {"mode": "plan"})]
    with pytest.raises(UsageError, match="unknown permission mode"):
        a.set_mode("yolo")


def test_switch_model_records_and_closes_the_old_provider(tmp_path: Path) -> None:
    sink, old = RecordingSink(), Closing([])
    a = agent(tmp_path, sink, old)
    new = ScriptedProvider([Say("from the new model")])
    asyncio.run(a.switch_model(new, "m2", "p2"))
    assert old.closed and a.provider is new and (a.options.model, a.options.provider_name) == ("m2", "p2")
    assert sink.records == [("model_switch", {"model": "m2", "provider": "p2"})]


def test_switch_preset_and_rewind(tmp_path: Path) -> None:
    sink = RecordingSink()
    a = agent(tmp_path, sink)
    a.switch_preset("readonly", policy=SimplePolicy("plan"), tools=["Read", "Grep"], system_prompt="read only")
    assert a.mode == "plan" and a.registry.enabled == ["Read", "Grep"] and a.options.system_prompt == "read only"
    assert sink.records == [("preset_switch", {"preset": "readonly", "mode": "plan"})]
    history = [Message.user("first")]
    a.rewind(history)
    assert a.messages == history and a.messages is not history
