"""Re-running a command the sandbox stopped, outside it, when a person says so.

A tool marks its output `metadata["sandbox_denied"]` (agentcli.sandbox.denied). With an interactive approver
the person is asked — once, or remembered (exact command or `cmd:*` prefix) for the rest of the session; the
approved call runs again with the sandbox's `unconfined()` form (no file or network limits; process lifetime
still held). Headless, or declined: a permission denial the run reports in `permission_denials`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentcli.core.permissions import Approval, ApprovalRequest, Approver
from agentcli.tools.base import ToolContext

UNSANDBOXED_KEY = "sandbox_unconfined_rules"


def request(call_id: str, tool_name: str, args: dict[str, Any], line: str) -> ApprovalRequest:
    return ApprovalRequest(call_id, tool_name, args, False,
                           f"the sandbox stopped it ({line}); run it once more OUTSIDE the sandbox?")


def remembered(ctx: ToolContext, args: dict[str, Any]) -> bool:
    """Did the person allow this command outside the sandbox for the session already?"""
    command = str(args.get("command", "")).strip()
    for rule in ctx.state.get(UNSANDBOXED_KEY, ()):
        spec = rule[len("Bash("):-1] if rule.startswith("Bash(") and rule.endswith(")") else None
        if spec is None:
            continue
        if spec.endswith(":*") and (command == spec[:-2] or command.startswith(spec[:-2] + " ")):
            return True
        if spec == command:
            return True
    return False


def remember(ctx: ToolContext, approval: Approval) -> None:
    if approval.remember:
        ctx.state.setdefault(UNSANDBOXED_KEY, []).append(approval.remember)


async def ask(approver: Approver, req: ApprovalRequest) -> Approval | None:
    """The person's answer, or None when nobody can answer (headless, scripted)."""
    if not getattr(approver, "interactive", False):
        return None
    return await approver.approve(req)


def unconfined_context(ctx: ToolContext) -> ToolContext:
    """A copy of the session's context whose commands run outside the sandbox (state shared)."""
    assert ctx.sandbox is not None
    return replace(ctx, sandbox=ctx.sandbox.unconfined())
