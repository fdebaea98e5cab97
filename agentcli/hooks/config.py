"""Reading hook configuration: Claude Code's `hooks` shape, from agentcli's settings layers or `--settings`.

    [[hooks.PreToolUse]]            # or, in JSON: {"hooks": {"PreToolUse": [{"matcher": "Bash",
    matcher = "Bash"                #               "hooks": [{"type": "command", "command": "…"}]}]}}
    [[hooks.PreToolUse.hooks]]
    type = "command"
    command = "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"
    timeout = 30                    # seconds (default 60)

A malformed table is a ConfigError naming the source; an event or hook type agentcli does not know is skipped
with a warning, so settings written for a newer Claude Code still load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from agentcli.core.hooks import HOOK_EVENTS
from agentcli.errors import ConfigError

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class HookSpec:
    """One configured command: when (event + matcher), what, for how long, and where it was configured."""

    event: str
    matcher: str
    command: str
    timeout_s: float
    source: str


def parse_hooks(table: Any, source: str) -> tuple[list[HookSpec], list[str]]:
    """The hooks of one settings layer and the warnings about what was skipped."""
    if table is None:
        return [], []
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: 'hooks' must be a table of events", hint="see docs/hooks.md")
    specs: list[HookSpec] = []
    warnings: list[str] = []
    for event, groups in table.items():
        if event not in HOOK_EVENTS:
            warnings.append(f"{source}: hook event {event!r} is not supported; its hooks are ignored")
            continue
        if not isinstance(groups, list):
            raise ConfigError(f"{source}: hooks.{event} must be a list of {{matcher, hooks}} tables")
        for group in groups:
            specs += _group(event, group, source, warnings)
    return specs, warnings


def _group(event: str, group: Any, source: str, warnings: list[str]) -> list[HookSpec]:
    where = f"{source}: hooks.{event}"
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        raise ConfigError(f"{where}: each entry needs a 'hooks' list", hint="see docs/hooks.md")
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        raise ConfigError(f"{where}: 'matcher' must be a string")
    out: list[HookSpec] = []
    for hook in group["hooks"]:
        if not isinstance(hook, dict):
            raise ConfigError(f"{where}: each hook must be a table with type and command")
        kind = hook.get("type", "command")
        if kind != "command":
            warnings.append(f"{where}: hook type {kind!r} is not supported (only 'command'); it is ignored")
            continue
        command = hook.get("command")
        if not isinstance(command, str) or not command.strip() or "\0" in command:
            raise ConfigError(f"{where}: a command hook needs a non-empty 'command' string")
        out.append(HookSpec(event, matcher, command, _timeout(hook.get("timeout"), where), source))
    return out


def _timeout(value: Any, where: str) -> float:
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{where}: 'timeout' must be a positive number of seconds, got {value!r}")
    return float(value)
