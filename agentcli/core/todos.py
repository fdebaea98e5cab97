"""The todo list as stored (TodoWrite's argument shape) and as items: light enough for a front end to read a
stored list without loading the compactor."""

from __future__ import annotations

from typing import Any

from agentcli.core.events import TodoItem


def todos_data(todos: tuple[TodoItem, ...]) -> list[dict[str, Any]]:
    return [{"content": t.content, "status": t.status, "activeForm": t.active_form} for t in todos]


def todos_from(data: Any) -> tuple[TodoItem, ...]:
    """TodoWrite's `todos` argument (or a stored copy) as items; anything malformed is skipped."""
    if not isinstance(data, list):
        return ()
    out = []
    for d in data:
        if isinstance(d, dict) and isinstance(d.get("content"), str) and isinstance(d.get("status"), str):
            out.append(TodoItem(d["content"], d["status"], str(d.get("activeForm") or d["content"])))
    return tuple(out)
