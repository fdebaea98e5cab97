"""Which tool call is running, for code that a tool calls back into (the subagent runner): the call's id and a
way to put events into the parent's stream while the call runs.

A context variable rather than an argument, because `Tool.run(args, ctx)` is shared by every tool and the
`ToolContext` is shared by concurrent calls; each call runs in its own task, which has its own copy.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CallScope:
    tool_use_id: str
    emit: Callable[[Any], None]


current_call: ContextVar[CallScope | None] = ContextVar("agentcli_current_call", default=None)
