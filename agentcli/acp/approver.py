"""Permission questions as ACP `session/request_permission`, with agentcli's choices: allow once, allow always
for this session (a rule remembered for the session, as the REPL's "remember" does), reject."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from acp.schema import AllowedOutcome, PermissionOption

from agentcli.acp.updates import kind_of, locations, title
from agentcli.core.permissions import Approval, ApprovalRequest

if TYPE_CHECKING:
    from acp import Client

ONCE, ALWAYS, REJECT = "allow_once", "allow_always", "reject_once"
OPTIONS = [
    PermissionOption(option_id=ONCE, name="Allow once", kind="allow_once"),
    PermissionOption(option_id=ALWAYS, name="Allow always (this session)", kind="allow_always"),
    PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
]
PLAN_OPTIONS = [
    PermissionOption(option_id="acceptEdits", name="Yes, and accept edits", kind="allow_always"),
    PermissionOption(option_id="default", name="Yes, and ask before edits", kind="allow_once"),
    PermissionOption(option_id=REJECT, name="No, keep planning", kind="reject_once"),
]


class AcpApprover:
    """Asks the ACP client. A cancelled request (the client's `session/cancel`, or an answer not among the
    options) is a denial: unknown input is denied, not guessed."""

    interactive = True

    def __init__(self, session_id: str, project_root: Path) -> None:
        self.session_id = session_id
        self.project_root = project_root
        self.client: Client | None = None

    async def approve(self, request: ApprovalRequest) -> Approval:
        from acp.schema import ToolCallUpdate

        if self.client is None:
            return Approval("deny", reason="no client is connected to answer")
        plan = request.kind == "plan"
        call = ToolCallUpdate(tool_call_id=request.tool_use_id, title=title(request.tool_name, request.input),
                              kind=kind_of(request.tool_name),  # type: ignore[arg-type]
                              status="pending", locations=locations(request.input), raw_input=request.input)
        answer = await self.client.request_permission(session_id=self.session_id, tool_call=call,
                                                      options=PLAN_OPTIONS if plan else OPTIONS)
        outcome = answer.outcome
        chosen = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        if plan and chosen in ("acceptEdits", "default"):
            return Approval("allow", mode=chosen)
        if chosen == ONCE and not plan:
            return Approval("allow")
        if chosen == ALWAYS and not plan:
            return Approval("allow", remember=self._rule(request), scope="session")
        why = "The user rejected this call." if chosen == REJECT else "The request was cancelled."
        return Approval("deny", reason=why)

    def _rule(self, request: ApprovalRequest) -> str:
        """The narrowest rule agentcli would suggest (the exact command, the file), as the REPL offers first."""
        from agentcli.permissions.suggest import suggest_rules

        found = suggest_rules(request.tool_name, request.input, self.project_root)
        return found[0].text if found else request.tool_name
