"""Permissions through the real agent loop: plan mode holds whatever the model asks; a denial's reason and
an edited command reach the model; an approved plan switches the mode."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.core.events import AgentEvent, PermissionDecision, RunFinished
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import Approval, ApprovalRequest, DenyingApprover
from agentcli.llm.messages import ToolResultBlock
from agentcli.permissions.loader import load_policy
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from tests.core.scripted import Say, ScriptedProvider

TOOLS = ("Read", "Write", "Edit", "Bash", "Glob", "Grep", "ExitPlanMode")


@dataclass
class Answering:
    """An approver that gives the same answer to every question and keeps the questions."""

    answer: Approval
    asked: list[ApprovalRequest] = field(default_factory=list)
    name: str = "user"

    async def approve(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return self.answer


def make(root: Path, script: list[Say], mode: str, approver: object) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(script)
    ctx = ToolContext(project_root=root, shell_cwd=root)
    policy = load_policy(root, mode)
    policy.bind(ctx)
    agent = Agent(
        provider=provider, registry=ToolRegistry(TOOLS), policy=policy, approver=approver,  # type: ignore[arg-type]
        ctx=ctx, options=AgentOptions(model="m", provider_name="scripted"),
    )
    return agent, provider


def run(agent: Agent, prompt: str) -> list[AgentEvent]:
    async def go() -> list[AgentEvent]:
        return [ev async for ev in agent.run(prompt)]

    return asyncio.run(go())


def results(agent: Agent) -> list[ToolResultBlock]:
    return [b for m in agent.messages for b in m.content if isinstance(b, ToolResultBlock)]


def test_plan_mode_runs_nothing_that_changes_anything(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("a = 1\n")
    attempts = [
        ("Write", {"file_path": "src/new.py", "content": "x"}),
        ("Edit", {"file_path": "src/a.py", "old_string": "a = 1", "new_string": "a = 2"}),
        ("Bash", {"command": "touch made.txt"}),
        ("Bash", {"command": "echo hi > made2.txt"}),
        ("Bash", {"command": "git status; touch made3.txt"}),
        ("Bash", {"command": "bash -c 'touch made4.txt'"}),
        ("Bash", {"command": "ls src"}),
        ("Read", {"file_path": "src/a.py"}),
    ]
    always_yes = Answering(Approval("allow"))
    agent, _ = make(root, [Say("trying", attempts), Say("done")], "plan", always_yes)
    events = run(agent, "change everything")
    assert isinstance(events[-1], RunFinished)
    assert sorted(p.name for p in root.iterdir()) == ["src"]
    assert sorted(p.name for p in (root / "src").iterdir()) == ["a.py"]
    assert (root / "src" / "a.py").read_text() == "a = 1\n"
    errors = [r.is_error for r in results(agent)]
    assert errors == [True] * 6 + [False, False]
    assert always_yes.asked == []  # a plan-mode denial never becomes a question
    decisions = [e for e in events if isinstance(e, PermissionDecision)]
    assert [d.by for d in decisions[:6]] == ["mode"] * 6


def test_denial_reason_reaches_the_model(tmp_path: Path) -> None:
    no = Answering(Approval("deny", reason="use the make target instead"))
    agent, provider = make(tmp_path, [Say("", [("Bash", {"command": "rm -rf build"})]), Say("ok")], "default", no)
    run(agent, "clean")
    assert no.asked and no.asked[0].tool_name == "Bash" and no.asked[0].reason
    last = provider.requests[-1].messages[-1]
    (block,) = [b for b in last.content if isinstance(b, ToolResultBlock)]
    assert block.is_error and "use the make target instead" in block.content


def test_edited_command_is_what_runs_and_what_the_model_is_told(tmp_path: Path) -> None:
    edited = Answering(Approval("allow", updated_input={"command": "echo edited > out.txt"}))
    agent, provider = make(tmp_path, [Say("", [("Bash", {"command": "echo original > out.txt"})]), Say("ok")],
                           "default", edited)
    run(agent, "write")
    assert (tmp_path / "out.txt").read_text() == "edited\n"
    (block,) = [b for b in provider.requests[-1].messages[-1].content if isinstance(b, ToolResultBlock)]
    assert "echo edited > out.txt" in block.content


def test_headless_ask_is_a_denial(tmp_path: Path) -> None:
    agent, _ = make(tmp_path, [Say("", [("Bash", {"command": "npm publish"})]), Say("ok")], "default",
                    DenyingApprover())
    events = run(agent, "publish")
    final = events[-1]
    assert isinstance(final, RunFinished)
    assert [d["tool_name"] for d in final.result.permission_denials] == ["Bash"]


class PlanReviewer:
    """A person who answers plan reviews with `answer` (and would deny any tool call)."""

    interactive = True

    def __init__(self, answer: Approval) -> None:
        self.answer = answer
        self.plans: list[str | None] = []

    async def approve(self, request: ApprovalRequest) -> Approval:
        if request.kind != "plan":
            return Approval("deny")
        self.plans.append(request.plan)
        return self.answer


def test_approved_plan_switches_the_mode(tmp_path: Path) -> None:
    plan = "1. add src/b.py"
    script = [Say("", [("ExitPlanMode", {"plan": plan})]), Say("", [("Write", {"file_path": "b.py", "content": "x"})]),
              Say("done")]
    reviewer = PlanReviewer(Approval("allow", mode="acceptEdits"))
    agent, _ = make(tmp_path, script, "plan", reviewer)
    run(agent, "plan it")
    assert reviewer.plans == [plan]
    assert agent.policy.mode == "acceptEdits"
    assert (tmp_path / "b.py").read_text() == "x"


def test_headless_plan_is_the_result(tmp_path: Path) -> None:
    agent, _ = make(tmp_path, [Say("", [("ExitPlanMode", {"plan": "the plan"})]), Say("ok")], "plan",
                    DenyingApprover())
    events = run(agent, "plan it")
    final = events[-1]
    assert isinstance(final, RunFinished) and final.result.result == "the plan"
    assert agent.policy.mode == "plan"


def test_keep_planning_sends_feedback(tmp_path: Path) -> None:
    agent, provider = make(tmp_path, [Say("", [("ExitPlanMode", {"plan": "p"})]), Say("ok")], "plan",
                           PlanReviewer(Approval("deny", reason="also cover tests")))
    run(agent, "plan it")
    (block,) = [b for b in provider.requests[-1].messages[-1].content if isinstance(b, ToolResultBlock)]
    assert "also cover tests" in block.content and agent.policy.mode == "plan"
