"""`--permission-prompt-tool stdio`: every question the policy leaves open becomes a `can_use_tool` request to the
SDK, whose `can_use_tool` callback answers it.

    → {"subtype":"can_use_tool","tool_name":"Bash","input":{…},"tool_use_id":"…","permission_suggestions":[],
       "blocked_path":null,"decision_reason":"…"}
    ← {"behavior":"allow","updatedInput":{…},"updatedPermissions":[…]}  |  {"behavior":"deny","message":"…",
       "interrupt":true}

An `updatedInput` that differs from the call's input is a counter-proposal: the tool runner checks it against
the tool's schema and the policy again before it runs (agentcli.core.toolrun), and the sandbox confines it as
any call. No answer (stdin closed, an error answer) is a denial the model can read.

`interactive` is False: a command the sandbox stopped is never offered to the SDK for a run outside it (a
callback that allows everything must not take the wall down), and ExitPlanMode's plan becomes the turn's result,
as in any headless run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.sdkio.channel import ControlChannel, ControlError

# Claude Code's rule destinations → agentcli's rule scopes (agentcli.core.permissions.Approval.scope)
SCOPES = {"session": "session", "localSettings": "local", "projectSettings": "project", "userSettings": "user"}


class StdioApprover:
    """Asks the SDK. `interrupt` is called when an answer says `interrupt: true` (the turn stops, as on Esc)."""

    name = "sdk"
    interactive = False

    def __init__(self, channel: ControlChannel, interrupt: Callable[[], object]) -> None:
        self.channel = channel
        self.interrupt = interrupt

    async def approve(self, request: ApprovalRequest) -> Approval:
        payload: dict[str, Any] = {
            "tool_name": request.tool_name,
            "input": request.input,
            "tool_use_id": request.tool_use_id,
            "permission_suggestions": [],
            "blocked_path": None,
        }
        if request.reason:
            payload["decision_reason"] = request.reason
        if request.agent:
            payload["agent_id"] = request.agent
        try:
            answer = await self.channel.request("can_use_tool", payload)
        except ControlError as err:
            return Approval("deny", reason=f"Permission to use {request.tool_name} was not granted ({err.message}).")
        return self._approval(request, answer)

    def _approval(self, request: ApprovalRequest, answer: dict[str, Any]) -> Approval:
        behavior = answer.get("behavior")
        if behavior == "allow":
            updated = answer.get("updatedInput")
            if updated is not None and not isinstance(updated, dict):  # malformed: neither run it nor guess
                return Approval("deny", reason=f"The SDK allowed {request.tool_name} with an updatedInput that is "
                                               "not an object of the tool's arguments, so the call was denied.")
            remember, scope = _rule(answer.get("updatedPermissions"))
            return Approval("allow", updated_input=updated if updated is not None and updated != request.input
                            else None, remember=remember, scope=scope)
        message = answer.get("message")
        reason = message if isinstance(message, str) and message else None
        if behavior != "deny":
            reason = f"The SDK's answer had no valid behavior ({behavior!r}), so the call was denied."
        if answer.get("interrupt") is True:
            self.interrupt()
        return Approval("deny", reason=reason)


def _rule(updates: Any) -> tuple[str | None, str | None]:
    """The first `addRules` allow rule of `updatedPermissions` as (rule text, scope); others are not applied."""
    if not isinstance(updates, list):
        return None, None
    for u in updates:
        if not isinstance(u, dict) or u.get("type") != "addRules" or u.get("behavior") != "allow":
            continue
        rules = u.get("rules")
        first = rules[0] if isinstance(rules, list) and rules else None
        if not isinstance(first, dict) or not isinstance(first.get("toolName"), str):
            continue
        content = first.get("ruleContent")
        text = f"{first['toolName']}({content})" if isinstance(content, str) and content else first["toolName"]
        return text, SCOPES.get(str(u.get("destination")), "session")
    return None, None
