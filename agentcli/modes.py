"""The permission mode: one type, defined once, for the command line, the Agent SDK, the REPL and the policy."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from agentcli.errors import UsageError

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
# `dontAsk` is a way to run rather than a mode the policy knows (agentcli.core.permissions.DontAskGate): the
# command line and the Agent SDK accept it beside the five.
DONT_ASK = "dontAsk"
FLAG_MODES: tuple[str, ...] = (*PERMISSION_MODES, DONT_ASK)


def is_mode(value: object) -> TypeGuard[PermissionMode]:
    return value in PERMISSION_MODES


def parse_mode(value: str) -> PermissionMode:
    """`value` as a permission mode, or a UsageError naming them."""
    if is_mode(value):
        return value
    raise UsageError(f"unknown permission mode {value!r}", hint=f"use one of {', '.join(PERMISSION_MODES)}")
