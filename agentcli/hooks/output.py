"""What one hook's exit status and output mean for its event (Claude Code's contract), and how several hooks of
one event combine.

Exit 0: go on; stdout may be JSON (`continue`, `stopReason`, `suppressOutput`, `systemMessage`, `decision`,
`reason`, `hookSpecificOutput`), and for UserPromptSubmit and SessionStart plain stdout is context for the model.
Exit 2: block; stderr is the reason (for the model, or for the user where the event has no model to tell).
Any other status: a non-blocking error the user is shown. A field with a value outside the contract is reported
and treated as the cautious choice (an unknown permission decision asks), never guessed into an allow.
"""

from __future__ import annotations

import json
from typing import Any

from agentcli.core.hooks import HookOutcome
from agentcli.hooks.process import Finished

CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
DECISIONS = ("allow", "deny", "ask")
_RANK = {"allow": 0, "ask": 1, "deny": 2}


def interpret(event: str, name: str, done: Finished) -> tuple[str, HookOutcome]:
    """The label for the run (success | blocking | error | timeout) and what it asks for."""
    out = HookOutcome()
    if done.timed_out:
        out.messages.append(f"{name} hook timed out and was stopped: {_first_line(done.stderr) or 'no output'}")
        return "timeout", out
    if done.exit_code == 2:
        text = done.stderr.strip() or f"Blocked by a {event} hook."
        _block(event, out, text)
        return "blocking", out
    if done.exit_code != 0:
        detail = _first_line(done.stderr) or _first_line(done.stdout) or "no output"
        out.messages.append(f"{name} hook failed (exit {done.exit_code}): {detail}")
        return "error", out
    data = _json_object(done.stdout)
    if data is None:
        if event in CONTEXT_EVENTS and done.stdout.strip():
            out.context.append(done.stdout.strip())
        return "success", out
    problems = _apply_json(event, data, out)
    for p in problems:
        out.messages.append(f"{name} hook: {p}")
    if problems:
        return "error", out
    return ("blocking" if out.block or out.permission == "deny" else "success"), out


def combine(parts: list[HookOutcome]) -> HookOutcome:
    total = HookOutcome()
    feedback: list[str] = []
    for p in parts:
        total.runs += p.runs
        total.block = total.block or p.block
        if p.feedback:
            feedback.append(p.feedback)
        if p.permission is not None and (total.permission is None or _RANK[p.permission] > _RANK[total.permission]):
            total.permission, total.reason = p.permission, p.reason
        if total.updated_input is None and p.updated_input is not None:
            total.updated_input = p.updated_input
        total.context += p.context
        if p.stop and not total.stop:
            total.stop, total.stop_reason = True, p.stop_reason
        total.messages += p.messages
    total.feedback = "\n".join(feedback) or None
    return total


def _block(event: str, out: HookOutcome, text: str) -> None:
    out.block, out.feedback = True, text
    if event in ("PreToolUse", "PermissionRequest"):
        out.permission, out.reason = "deny", text


def _apply_json(event: str, data: dict[str, Any], out: HookOutcome) -> list[str]:
    problems: list[str] = []
    if data.get("continue") is False:
        out.stop = True
        reason = data.get("stopReason")
        out.stop_reason = reason if isinstance(reason, str) and reason else f"A {event} hook stopped the agent."
    message = data.get("systemMessage")
    if isinstance(message, str) and message:
        out.messages.append(message)
    decision, reason = data.get("decision"), data.get("reason")
    reason_text = reason if isinstance(reason, str) and reason else None
    if decision == "block":
        _block(event, out, reason_text or f"Blocked by a {event} hook.")
    elif decision == "approve" and event == "PreToolUse":
        out.permission, out.reason = "allow", reason_text
    elif decision not in (None, "", "approve"):
        problems.append(f"unknown decision {decision!r} (expected 'block')")
    specific = data.get("hookSpecificOutput")
    if specific is not None:
        problems += _apply_specific(event, specific, out)
    return problems


def _apply_specific(event: str, specific: Any, out: HookOutcome) -> list[str]:
    if not isinstance(specific, dict):
        return ["hookSpecificOutput must be an object"]
    named = specific.get("hookEventName")
    if named is not None and named != event:
        return [f"hookSpecificOutput is for {named!r}, not {event}; it was ignored"]
    problems: list[str] = []
    context = specific.get("additionalContext")
    if isinstance(context, str) and context.strip():
        out.context.append(context.strip())
    if event == "PreToolUse":
        problems += _tool_decision(specific, out)
    elif event == "PermissionRequest":
        problems += _permission_request(specific.get("decision"), out)
    return problems


def _tool_decision(specific: dict[str, Any], out: HookOutcome) -> list[str]:
    problems: list[str] = []
    decision = specific.get("permissionDecision")
    reason = specific.get("permissionDecisionReason")
    reason_text = reason if isinstance(reason, str) and reason else None
    if decision is not None:
        if decision in DECISIONS:
            out.permission, out.reason = decision, reason_text
        else:
            out.permission, out.reason = "ask", reason_text
            problems.append(f"unknown permissionDecision {decision!r}; asking instead")
    problems += _updated_input(specific.get("updatedInput"), out)
    return problems


def _permission_request(decision: Any, out: HookOutcome) -> list[str]:
    if decision is None:
        return []
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        return ["hookSpecificOutput.decision needs behavior 'allow' or 'deny'; the user is asked instead"]
    message = decision.get("message")
    out.permission = decision["behavior"]
    out.reason = message if isinstance(message, str) and message else None
    if out.permission == "deny":
        out.feedback = out.reason
    return _updated_input(decision.get("updatedInput"), out)


def _updated_input(value: Any, out: HookOutcome) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, dict):
        return ["updatedInput must be an object; it was ignored"]
    out.updated_input = value
    return []


def _json_object(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""
