"""Claude Code's flags that agentcli takes for compatibility (the Claude Agent SDK passes them) but cannot honour.

Two kinds, decided by whether ignoring the flag is safe:

    accepted with a notice on stderr (once)   --betas, --task-budget, --thinking-display, --debug-to-stderr,
                                              --effort xhigh|max (agentcli's highest is high)
    refused, exit 2, code unsupported_flag    --plugin-dir (a plugin's hooks may be guards), --session-mirror
                                              (the caller's session store would silently stay empty),
                                              --resume-drops-turn (a safety check on a truncating resume)

docs/sdk-flags.md keeps the table. Standard library only: it is imported on every `-p` start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentcli.cli.flags import Flag, flag
from agentcli.errors import UsageError

PANEL = "Claude Code compatibility"

COMPAT_FLAGS: tuple[Flag, ...] = (
    flag("--betas", metavar="BETAS", panel=PANEL, help="Anthropic beta headers: accepted and ignored"),
    flag("--task-budget", metavar="TOKENS", panel=PANEL, help="a task token budget: accepted and ignored"),
    flag("--thinking-display", metavar="MODE", panel=PANEL, help="how thinking is shown: accepted and ignored"),
    flag("--debug-to-stderr", kind="switch", panel=PANEL, help="Claude Code's debug log: accepted and ignored"),
    flag("--plugin-dir", kind="append", metavar="DIR", panel=PANEL, help="Claude Code plugins: not supported"),
    flag("--session-mirror", kind="switch", panel=PANEL, help="the SDK's session store mirror: not supported"),
    flag("--resume-drops-turn", metavar="ID", panel=PANEL, help="a truncating resume's check: not supported"),
)

IGNORED: Mapping[str, str] = {
    "betas": "--betas is ignored: agentcli chooses the provider's request options itself",
    "task_budget": "--task-budget is ignored: use --max-budget-usd or --max-turns to bound a run",
    "thinking_display": "--thinking-display is ignored: thinking is shown as the provider streams it",
    "debug_to_stderr": "--debug-to-stderr is ignored: use --verbose for progress on stderr",
}

UNSUPPORTED: Mapping[str, str] = {
    "plugin_dir": "--plugin-dir is not supported: agentcli does not load Claude Code plugins (their hooks and "
                  "servers would silently not run)",
    "session_mirror": "--session-mirror is not supported: agentcli keeps sessions in its own store "
                      "(agentcli sessions export)",
    "resume_drops_turn": "--resume-drops-turn is not supported: use --resume-session-at alone",
}

HIGHEST_EFFORT = {"xhigh": "high", "max": "high"}


def check(values: Mapping[str, Any]) -> list[str]:
    """Refuse what cannot be honoured safely (UsageError, code unsupported_flag, exit 2); return one notice per
    ignored flag, for stderr."""
    for key, why in UNSUPPORTED.items():
        if values.get(key):
            raise UsageError(why, code="unsupported_flag", hint="leave the option out")
    notices = [why for key, why in IGNORED.items() if values.get(key) not in (None, False, [])]
    effort = values.get("effort")
    if effort in HIGHEST_EFFORT:
        notices.append(f"--effort {effort} is sent as high, the highest level agentcli's providers take")
    return [f"agentcli: note: {n}" for n in notices]


def drop(flags: dict[str, Any]) -> dict[str, Any]:
    """The settings flag layer without the flags that only this module reads."""
    for key in (*IGNORED, *UNSUPPORTED):
        flags.pop(key, None)
    if flags.get("effort") in HIGHEST_EFFORT:
        flags["effort"] = HIGHEST_EFFORT[flags["effort"]]
    return flags
