"""`rewind_files`: the files as they were at a session record (the conversation is kept), from the session's
file checkpoints (agentcli.session.rewind). The id is a session record id (`agentcli sessions show`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.errors import UsageError

if TYPE_CHECKING:
    from agentcli.assembly.runtime import Built
    from agentcli.settings.config import Settings


def rewind_files(built: Built, settings: Settings, target: str) -> dict[str, Any]:
    from agentcli.session import layout
    from agentcli.session.reader import load
    from agentcli.session.rewind import apply_rewind, plan_rewind

    writer = built.session.writer
    if writer is None or writer.shadow is None:
        raise UsageError("rewind_files needs a stored session with file checkpoints",
                         hint="do not pass --no-session-persistence")
    agent = built.agent
    writer.flush()  # records may wait behind a turn-end checkpoint
    loaded = load(layout.sessions_dir(settings.project_root), agent.session_id)
    plan = plan_rewind(loaded, target, writer.shadow)
    if plan.tree is None:
        raise UsageError(f"no file checkpoint after record {target}: nothing to rewind")
    agent.rewind(apply_rewind(writer, loaded, plan, files=True, conversation=False))
    return {"canRewind": True, "filesChanged": [c.path for c in plan.changes]}
