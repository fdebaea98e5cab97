"""The seam between the loop and the hook runner (agentcli.hooks), which is injected and optional.

The loop asks `Hooks.select` which commands an event would run (cheap, no I/O; empty when none are configured,
so a session without hooks pays nothing), announces them, runs them with `Hooks.run`, and applies the combined
`HookOutcome`. What an outcome means for each event follows Claude Code's hook contract.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import field
from typing import Any, Literal, Protocol

from agentcli.core.events import AgentEvent, HookFinished, HookStarted, Notice
from agentcli.core.sink import SessionSink
from agentcli.record import record

HOOK_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)


@record
class HookCall:
    """One command an event will run."""

    hook_id: str
    event: str
    name: str
    command: str
    timeout_s: float


@record(frozen=False)
class HookOutcome:
    """Every hook of one event, combined. Empty (nothing to apply) when no hook ran or all said nothing.

    - `block`: exit status 2 or a blocking decision; `feedback` is the text for the model (or, for events whose
      blocks go to the user, for the user).
    - `permission`: PreToolUse's / PermissionRequest's decision (deny > ask > allow across hooks) with `reason`.
    - `updated_input`: a rewritten tool input (to be validated and checked again by the caller).
    - `context`: text to add for the model (stdout of UserPromptSubmit/SessionStart, `additionalContext`).
    - `stop`: `"continue": false` — the run ends after this step, `stop_reason` shown to the user.
    - `messages`: what the user should see (`systemMessage`, non-blocking errors).
    """

    runs: list[HookFinished] = field(default_factory=list)
    block: bool = False
    feedback: str | None = None
    permission: Literal["allow", "deny", "ask"] | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str | None = None
    messages: list[str] = field(default_factory=list)


class Hooks(Protocol):
    def select(self, event: str, target: str | None) -> list[HookCall]: ...

    async def run(self, calls: list[HookCall], payload: dict[str, Any]) -> HookOutcome: ...


async def fire(
    hooks: Hooks | None, sink: SessionSink, event: str, target: str | None, payload: dict[str, Any]
) -> AsyncIterator[AgentEvent | HookOutcome]:
    """Run `event`'s matching hooks: yields HookStarted events, then HookFinished and Notice events, and last the
    combined HookOutcome (an empty one when nothing matched). Every run is recorded in the session."""
    calls = hooks.select(event, target) if hooks is not None else []
    if hooks is None or not calls:
        yield HookOutcome()
        return
    for call in calls:
        yield HookStarted(call.hook_id, call.event, call.name, call.command)
    outcome = await hooks.run(calls, {**payload, "hook_event_name": event})
    for run in outcome.runs:
        sink.record("hook", {"event": run.event, "name": run.name, "command": run.command,
                             "exit_code": run.exit_code, "outcome": run.outcome, "duration_ms": run.duration_ms,
                             "decision": outcome.permission or ("block" if outcome.block else None)})
        yield run
    for text in outcome.messages:
        yield Notice("warning", text)
    yield outcome
