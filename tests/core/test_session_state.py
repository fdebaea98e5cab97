"""The session's state has one owner: after `/preset` (which brings a new policy) the mode the sandbox confines by
and the read-deny rules its walk of the project uses are the session's current ones, not the first policy's. The
real agent, built as the CLI builds it, switched the way the REPL's /preset and /plan switch it, and a command run
by the real Bash tool under the real kernel sandbox."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest

from agentcli import paths
from agentcli.agents.runner import SubagentRunner
from agentcli.assembly import runtime
from agentcli.assembly.runtime import build
from agentcli.assembly.switching import preset_policy
from agentcli.core.events import AgentEvent, SessionChanged, SessionStarted, ToolFinished
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import Approval, DenyingApprover, SimplePolicy
from agentcli.settings import presets
from agentcli.settings.config import Settings
from agentcli.tools.base import ToolContext
from agentcli.tools.bash import BashTool
from agentcli.tools.registry import ToolRegistry, load_tool
from tests.cli.helpers import in_process_project
from tests.core.scripted import Say, ScriptedProvider
from tests.fakes.server import FakeLLM
from tests.permissions.test_loop import PlanReviewer, make


def switch_preset(agent: Agent, settings: Settings, name: str) -> None:
    """What the REPL's `/preset name` does to a built agent (agentcli.ui.actions.switch_preset)."""
    preset = presets.load_preset(name, settings.project_root)
    modes = dataclasses.replace(settings.permissions, mode=preset.permission_mode or agent.mode)
    settings = dataclasses.replace(settings, preset=name, permissions=modes)
    policy = preset_policy(settings, agent, preset, [])
    agent.switch_preset(name, policy=policy, tools=runtime.tool_names(preset, policy.mode),
                        system_prompt=runtime.build_prompt(settings, preset))


def test_plan_mode_confines_bash_after_a_preset_switch(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"})

    async def scenario() -> tuple[str, bool]:
        built = await build(settings, DenyingApprover())
        agent = built.agent
        try:
            assert agent.ctx.sandbox is not None and agent.ctx.sandbox.confining
            switch_preset(agent, settings, "coding")
            agent.set_mode("plan")  # /plan, Shift-Tab
            out = await BashTool().run({"command": "touch made.txt; echo x >> a.txt"}, agent.ctx)
            return out.content, agent.ctx.sandbox.mode == "read-only"
        finally:
            await agent.aclose()

    content, read_only = asyncio.run(scenario())
    assert read_only
    assert "Read-only file system" in content
    assert not (proj / "made.txt").exists() and (proj / "a.txt").read_text() == "alpha\n"


def test_the_sandbox_reads_the_deny_rules_of_the_preset_in_force(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"})
    (paths.home() / "presets").mkdir(parents=True, exist_ok=True)
    (paths.home() / "presets" / "guarded.toml").write_text(
        'description = "d"\ntools = ["Read", "Bash"]\n[permissions]\ndeny = ["Read(notes/**)"]\n')
    secret = os.path.join(os.path.realpath(proj), "notes", "key.txt")

    async def scenario() -> tuple[bool, bool]:
        built = await build(settings, DenyingApprover())
        agent = built.agent
        try:
            assert agent.ctx.sandbox is not None
            denied = agent.ctx.sandbox.spec.read_denied
            assert denied is not None
            before = denied(secret)
            switch_preset(agent, settings, "guarded")
            return before, denied(secret)
        finally:
            await agent.aclose()

    before, after = asyncio.run(scenario())
    assert not before and after


def _changes(events: list[AgentEvent]) -> list[SessionChanged]:
    return [ev for ev in events if isinstance(ev, SessionChanged)]


def test_changes_between_runs_are_events_first_in_the_next_run(tmp_path: Path) -> None:
    agent = Agent(provider=ScriptedProvider([Say("one"), Say("two")]), registry=ToolRegistry(["Read"]),
                  policy=SimplePolicy(), approver=DenyingApprover(), ctx=ToolContext(project_root=tmp_path),
                  options=AgentOptions(model="m1", provider_name="p1"))
    agent.set_mode("acceptEdits")
    agent.switch_preset("readonly", policy=SimplePolicy("plan"), tools=["Read"], system_prompt="s")
    events = asyncio.run(_collect(agent, "go"))
    assert isinstance(events[0], SessionStarted) and events[0].permission_mode == "plan"
    assert events[1:3] == [SessionChanged("mode", "acceptEdits", "m1", None),
                           SessionChanged("preset", "plan", "m1", "readonly")]
    assert _changes(asyncio.run(_collect(agent, "again"))) == []  # told once


def test_an_approved_plan_is_a_mode_change_in_its_run(tmp_path: Path) -> None:
    script = [Say("", [("ExitPlanMode", {"plan": "the plan"})]), Say("done")]
    agent, _ = make(tmp_path, script, "plan", PlanReviewer(Approval("allow", mode="acceptEdits")))
    events = asyncio.run(_collect(agent, "plan it"))
    assert _changes(events) == [SessionChanged("mode", "acceptEdits", "m", None)]
    finished = next(i for i, ev in enumerate(events) if isinstance(ev, ToolFinished))
    assert finished < events.index(_changes(events)[0]) < len(events) - 1  # after the plan's call, in its run


def test_the_preset_and_its_mode_are_the_sessions_after_a_switch(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"})

    async def scenario() -> tuple[str, str | None, str, str]:
        built = await build(settings, DenyingApprover())
        agent = built.agent
        try:
            old = agent.policy
            switch_preset(agent, settings, "plan")
            return agent.mode, agent.session.preset, old.mode, agent.policy.mode
        finally:
            await agent.aclose()

    assert asyncio.run(scenario()) == ("plan", "plan", "plan", "plan")  # no policy keeps a mode of its own


async def _collect(agent: Agent, prompt: str) -> list[AgentEvent]:
    return [ev async for ev in agent.run(prompt)]


def test_a_subagent_started_after_a_preset_switch_gets_that_presets_rules(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Task tool's children are built from the policy in force when they start, see the session's web
    settings, and ask their own model about images."""
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.txt": "alpha\n"})
    (paths.home() / "presets").mkdir(parents=True, exist_ok=True)
    (paths.home() / "presets" / "guarded.toml").write_text(
        'description = "d"\ntools = ["Read", "Bash", "Task"]\n[permissions]\ndeny = ["Read(notes/**)"]\n')
    read = load_tool("Read")

    async def scenario() -> tuple[str, bool, bool]:
        built = await build(settings, DenyingApprover())
        agent = built.agent
        try:
            agent.ctx.web.private_hosts = frozenset({"127.0.0.1"})
            switch_preset(agent, settings, "guarded")
            runner = agent.subagents.runner()  # made at the first Task call (agentcli.assembly.tasks)
            assert isinstance(runner, SubagentRunner)
            child, _ = await runner.factory(runner.definition("general-purpose"), "toolu_1")
            try:
                verdict = child.policy.check(read, {"file_path": str(proj / "notes" / "key.txt")})
                return verdict.behavior, child.ctx.web is agent.ctx.web, child.ctx.model is child
            finally:
                await child.aclose()
        finally:
            await agent.aclose()

    assert asyncio.run(scenario()) == ("deny", True, True)
