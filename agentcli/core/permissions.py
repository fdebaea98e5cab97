"""The seam between the loop and whoever decides tool calls.

`Policy.check` answers allow / deny / ask from the mode and the rules (no I/O, no waiting). Only `ask` reaches
the front end's `Approver`. Headless front ends use `DenyingApprover`: with no human, ask means deny.
The full rule language lives in agentcli.permissions; `SimplePolicy` is the mode + tool-name baseline.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from agentcli.core.state import SessionState
from agentcli.modes import PermissionMode
from agentcli.record import record
from agentcli.tools.base import Tool

Behavior = Literal["allow", "deny", "ask"]


@record
class Verdict:
    """The policy's answer. `by` is rule | mode | default; `rule` the rule text that matched."""

    behavior: Behavior
    by: str
    rule: str | None = None
    reason: str | None = None


@record
class ApprovalRequest:
    """A question for the person. `kind` "tool": may this call run? "plan": ExitPlanMode's `plan` — approve it
    (and say which mode to continue in) or send it back with feedback (the denial's reason)."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    read_only: bool
    reason: str | None = None
    kind: Literal["tool", "plan"] = "tool"
    plan: str | None = None
    agent: str | None = None  # the subagent asking (None: the main agent)


@record
class Approval:
    """A person's answer. `updated_input` is a counter-proposal that runs instead; `remember` a rule text
    with `scope` session | local ("this project", personal) | project (shared) | user ("everywhere") to save;
    `mode` the permission mode to continue in after an approved plan."""

    behavior: Literal["allow", "deny"]
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    remember: str | None = None
    scope: str | None = None
    mode: str | None = None


class Policy(Protocol):
    """Decides tool calls. Its mode is the session's (`session`, which the agent hands every policy it uses),
    never a copy of its own."""

    session: SessionState

    @property
    def mode(self) -> PermissionMode: ...

    def check(self, tool: Tool, args: dict[str, Any]) -> Verdict: ...

    def remember(self, rule: str, scope: str) -> list[str]:
        """Allow `rule` from now on (and save it for `scope`); returns problems to tell the person."""
        ...


class Approver(Protocol):
    """Answers questions (`approve`). `interactive` is False when nobody can: then a plan is not asked about
    but becomes the run's result."""

    interactive: bool

    async def approve(self, request: ApprovalRequest) -> Approval: ...


class DenyingApprover:
    """For headless runs: nothing can answer, so every question is a denial the model can read."""

    interactive = False

    async def approve(self, request: ApprovalRequest) -> Approval:
        return Approval(
            "deny",
            reason=(
                f"Permission to use {request.tool_name} was not granted (non-interactive run). "
                "Do not retry it; continue without it or explain what you need."
            ),
        )


class SimplePolicy:
    """Mode plus allowed/disallowed tool names; deny > allow; plan mode permits only read-only tools."""

    def __init__(self, mode: PermissionMode = "default", allowed: tuple[str, ...] = (),
                 disallowed: tuple[str, ...] = ()) -> None:
        self.session = SessionState(mode)
        self.allowed = allowed
        self.disallowed = disallowed

    @property
    def mode(self) -> PermissionMode:
        return self.session.mode

    def check(self, tool: Tool, args: dict[str, Any]) -> Verdict:
        if tool.name in self.disallowed:
            return Verdict("deny", "rule", rule=tool.name, reason=f"{tool.name} is disallowed")
        if self.mode == "bypassPermissions":
            return Verdict("allow", "mode")
        if self.mode == "plan":
            if tool.read_only or tool.name == "ExitPlanMode":
                return Verdict("allow", "mode")
            return Verdict("deny", "mode", reason="plan mode: only read-only tools may run")
        if tool.name in self.allowed:
            return Verdict("allow", "rule", rule=tool.name)
        if tool.read_only:
            return Verdict("allow", "mode")
        if self.mode == "acceptEdits" and tool.edits_files:
            return Verdict("allow", "mode")
        return Verdict("ask", "default")

    def remember(self, rule: str, scope: str) -> list[str]:
        self.allowed = (*self.allowed, rule)
        return []


class DontAskGate:
    """`dontAsk` mode, as Claude Code's: while `on`, what no rule allows is denied without asking anyone; while
    off, `inner` asks. A gate rather than a swapped approver, so a session can enter and leave the mode (the
    Agent SDK's `set_permission_mode`)."""

    def __init__(self, inner: Approver, *, on: bool = False) -> None:
        self.inner = inner
        self.name: str = getattr(inner, "name", "user")
        self.interactive = False
        self.set(on)

    def set(self, on: bool) -> None:
        self.on = on
        self.interactive = bool(getattr(self.inner, "interactive", False)) and not on

    async def approve(self, request: ApprovalRequest) -> Approval:
        if not self.on:
            return await self.inner.approve(request)
        return Approval("deny", reason=(
            f"Permission to use {request.tool_name} was not granted: the session is in dontAsk mode, where only "
            "what the permission rules allow runs. Do not retry it; continue without it."))

