"""Runs the approval prompt standalone, for the pseudo-terminal tests: `python approval_driver.py ROOT REQUEST`.

REQUEST is JSON, one of:
  {"tool": …, "input": {…}, "reason": …}   one prompt; a remembered rule goes to the real policy, as the loop does
  {"plan": "…"}                              the plan review
  {"loop": "a shell command"}                the real loop with a scripted model that asks for that command once
The result is printed as one line `RESULT {json}`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.llm.messages import ToolResultBlock
from agentcli.permissions.loader import load_policy
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from agentcli.ui.approval import TerminalApprover
from tests.core.scripted import Say, ScriptedProvider


async def one_prompt(root: Path, request: dict[str, Any]) -> dict[str, Any]:
    approver = TerminalApprover(root)
    req = ApprovalRequest("call_1", request["tool"], request["input"], False, request.get("reason"))
    approval = await approver.approve(req)
    assert approval.mode is None  # only plan reviews carry a mode
    if approval.behavior == "allow" and approval.remember:
        policy = load_policy(root)
        policy.remember(approval.remember, approval.scope or "session")
        return {**_answer(approval), "session_rules": policy.session_rules()}
    return _answer(approval)


def _answer(approval: Approval) -> dict[str, Any]:
    return {k: v for k, v in asdict(approval).items() if k != "mode"}


async def plan_review(root: Path, plan: str) -> dict[str, Any]:
    req = ApprovalRequest("call_1", "ExitPlanMode", {"plan": plan}, True, kind="plan", plan=plan)
    answer = await TerminalApprover(root).approve(req)
    return {"behavior": answer.behavior, "mode": answer.mode, "reason": answer.reason}


async def loop(root: Path, command: str) -> dict[str, Any]:
    provider = ScriptedProvider([Say("", [("Bash", {"command": command})]), Say("ok")])
    ctx = ToolContext(project_root=root, shell_cwd=root)
    policy = load_policy(root)
    policy.bind(ctx)
    agent = Agent(provider=provider, registry=ToolRegistry(["Bash"]), policy=policy, approver=TerminalApprover(root),
                  ctx=ctx, options=AgentOptions(model="m", provider_name="scripted"))
    async for _ in agent.run("go"):
        pass
    told = [b for b in provider.requests[-1].messages[-1].content if isinstance(b, ToolResultBlock)]
    return {"told": told[0].content, "is_error": told[0].is_error}


async def main(root: Path, request: dict[str, Any]) -> dict[str, Any]:
    if "plan" in request:
        return await plan_review(root, request["plan"])
    if "loop" in request:
        return await loop(root, request["loop"])
    return await one_prompt(root, request)


if __name__ == "__main__":
    result = asyncio.run(main(Path(sys.argv[1]), json.loads(sys.argv[2])))
    print("RESULT " + json.dumps(result), flush=True)
