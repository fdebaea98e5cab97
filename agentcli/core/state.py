"""The session's state with one owner: the permission mode (and the type that names a mode, defined once).

The agent owns one `SessionState` for its whole life. The policy it uses, the sandbox (plan mode runs commands
read-only) and every front end read the mode from that object, so a preset switch, which brings a new policy,
can never leave a reader holding a mode nobody updates any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard, get_args

from agentcli.errors import UsageError

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
# `dontAsk` is a way to run rather than a mode the policy knows (agentcli.core.permissions.DontAskGate): the
# command line and the Agent SDK accept it beside the four.
DONT_ASK = "dontAsk"
FLAG_MODES: tuple[str, ...] = (*PERMISSION_MODES, DONT_ASK)


def is_mode(value: object) -> TypeGuard[PermissionMode]:
    return value in PERMISSION_MODES


def parse_mode(value: str) -> PermissionMode:
    """`value` as a permission mode, or a UsageError naming the four."""
    if is_mode(value):
        return value
    raise UsageError(f"unknown permission mode {value!r}", hint=f"use one of {', '.join(PERMISSION_MODES)}")


@dataclass(slots=True)
class SessionState:
    """What a session is set to now. Written only through the agent's command API (`Agent.set_mode` …)."""

    mode: PermissionMode = "default"
