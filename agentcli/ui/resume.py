"""`agentcli --resume` / `--continue` at start-up. Before the prompt only which session, and that it is free,
is checked; once the prompt is up the session is read from its last compaction on (agentcli.session.resumable:
no provider, tools or session writer) and drawn above it, and then its agent is built in the background, as a
fresh session's is, continuing exactly the session shown."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from agentcli.core.events import TodoItem
    from agentcli.session.records import Record
    from agentcli.session.resumable import Resumable
    from agentcli.settings.config import Settings
    from agentcli.ui.render import Renderer


def resolve_stored(settings: Settings) -> Settings:
    """Which stored session `settings` resume or continue, and whether it is free, checked before the prompt
    (reading nothing more: the transcript is read with its drawing). The settings returned name it by id and
    fix the id it continues under, so the agent built later opens exactly this session (a `-c` cannot pick a
    newer one) and the id shown is the one it gets (a fork's too). Raises what opening it would:
    SessionNotFoundError, SessionLockedError (another process writes it), UsageError."""
    from agentcli.session import layout
    from agentcli.session.resumable import check_unlocked, continued_id, resolve_session

    directory = layout.sessions_dir(settings.project_root.resolve())
    sid = resolve_session(directory, settings.session.resume or None)
    target = continued_id(sid, fork=settings.session.fork, no_persistence=settings.session.no_persistence,
                          session_id=settings.session.session_id)
    if target == sid:
        check_unlocked(directory, sid)
    session = dataclasses.replace(settings.session, resume=sid, continue_=False, session_id=target)
    return dataclasses.replace(settings, session=session)


def draw_stored(console: Console, renderer: Renderer, settings: Settings) -> tuple[str, list[str]]:
    """The resumed session (`resolve_stored`) read from its last compaction on and drawn as `show_stored`
    and the "Resumed session" line, by `renderer` on `console` into a string (what it would write to the
    terminal): this runs in a worker thread while the prompt is up, and the result is written above it at
    once. Also returns the notices shown (what was wrong with the file, what repair did)."""
    from agentcli.session import layout
    from agentcli.session.resumable import read_resumable

    stored = read_resumable(layout.sessions_dir(settings.project_root.resolve()), settings.session.resume)
    with console.capture() as captured:
        show_stored(renderer, stored)
        renderer.notice(f"Resumed session {settings.session.session_id}")
    return captured.get(), stored.notices


def show_stored(renderer: Renderer, stored: Resumable) -> None:
    """What the user saw, from the last compaction on: what was wrong with the file, the conversation's tail
    (agentcli.ui.render.Renderer.replay), and the todo list as it was last recorded."""
    for note in stored.notices:
        renderer.notice(note, style="yellow")
    renderer.replay(stored.messages, edited=edited_calls(stored.chain))
    todos = stored_todos(stored.chain)
    if todos:
        from agentcli.core.events import TodosUpdated

        renderer.feed(TodosUpdated(todos))


def edited_calls(records: list[Record]) -> dict[str, dict[str, Any]]:
    """Tool calls the user edited at the approval prompt before they ran: tool_use_id → the input that ran."""
    return {r["data"]["tool_use_id"]: r["data"]["updated_input"] for r in records
            if r.get("type") == "permission" and isinstance(r.get("data"), dict)
            and isinstance(r["data"].get("tool_use_id"), str) and isinstance(r["data"].get("updated_input"), dict)}


def stored_todos(records: list[Record]) -> tuple[TodoItem, ...]:
    """The todo list last recorded on the branch (a TodoWrite, or a compaction that carried it)."""
    from agentcli.core.todos import todos_from

    for rec in reversed(records):
        if rec.get("type") in ("todos", "compaction") and isinstance(rec.get("data"), dict):
            return todos_from(rec["data"].get("todos"))
    return ()
