"""Re-running a command the sandbox stopped, outside it, when a person says so.

A tool marks its output `metadata["sandbox_denied"]` (agentcli.sandbox.denied). With an interactive approver
the person is asked — once, or remembered (exact command or `cmd:*` prefix) for the session, this project
(settings.local.toml) or everywhere (config.toml), under `[sandbox] unconfined`; the
approved call runs again with the sandbox's `unconfined()` form (no file or network limits; process lifetime
still held). Headless, or declined: a permission denial the run reports in `permission_denials`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from agentcli.core.permissions import Approval, ApprovalRequest, Approver
from agentcli.tools.base import ToolContext

_COMPOUND = re.compile(r"[;&|`$()<>\n\\]")


def request(call_id: str, tool_name: str, args: dict[str, Any], line: str) -> ApprovalRequest:
    return ApprovalRequest(call_id, tool_name, args, False,
                           f"the sandbox stopped it ({line}); run it once more OUTSIDE the sandbox?")


def remembered(ctx: ToolContext, args: dict[str, Any]) -> bool:
    """Did the person allow this command outside the sandbox for the session already?"""
    command = str(args.get("command", "")).strip()
    for rule in ctx.unsandboxed:
        spec = rule[len("Bash("):-1] if rule.startswith("Bash(") and rule.endswith(")") else None
        if spec is None:
            continue
        prefix = spec[:-2] if spec.endswith(":*") else spec[:-2] if spec.endswith(" *") else None
        # A prefix never covers a compound command: `npm test; curl evil` is not `npm test`.
        if prefix and (command == prefix or command.startswith(prefix + " ")) and not _COMPOUND.search(command):
            return True
        if spec == command:
            return True
    return False


def remember(ctx: ToolContext, approval: Approval) -> str | None:
    """Keep an approval "and remember" for the session and, for `local` (this project, personal) or `user`
    (everywhere), in that settings file's `[sandbox] unconfined` list. Returns where it was saved, or a
    problem saving it."""
    if not approval.remember:
        return None
    ctx.unsandboxed.append(approval.remember)
    if approval.scope not in ("local", "user"):
        return None
    from agentcli import paths
    from agentcli.errors import AgentCliError
    from agentcli.settings import writer

    path = paths.project_dir(ctx.project_root) / "settings.local.toml" if approval.scope == "local" \
        else paths.user_config_file()
    try:
        current = writer.load(path).get("sandbox", {})
        rules = list(current.get("unconfined", [])) if isinstance(current, dict) else []
        if approval.remember not in rules:
            writer.update_table(path, "sandbox", {"unconfined": [*rules, approval.remember]})
    except (AgentCliError, OSError) as err:
        return f"not saved to {path}: {err}"
    return f"saved to {path}"


async def ask(approver: Approver, req: ApprovalRequest) -> Approval | None:
    """The person's answer, or None when nobody can answer (headless, scripted)."""
    if not getattr(approver, "interactive", False):
        return None
    return await approver.approve(req)


def unconfined_context(ctx: ToolContext) -> ToolContext:
    """A copy of the session's context whose commands run outside the sandbox (state shared)."""
    assert ctx.sandbox is not None
    return replace(ctx, sandbox=ctx.sandbox.unconfined())
