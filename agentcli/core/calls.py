"""Which tool call is running, for code that a tool calls back into (the subagent runner): the call's id, a way
to put events into the parent's stream while the call runs, and a way to wait until the parent's consumer has
taken them.

A context variable rather than an argument, because `Tool.run(args, ctx)` is shared by every tool and the
`ToolContext` is shared by concurrent calls; each call runs in its own task, which has its own copy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from agentcli.record import record


async def _nothing_pending() -> None:
    return None


@record
class CallScope:
    tool_use_id: str
    emit: Callable[[Any], None]
    # Returns once everything emitted so far has been taken by the consumer of the parent's stream (a front end
    # has drawn it), through every enclosing call: a subagent's question must not come before its progress.
    settled: Callable[[], Awaitable[None]] = _nothing_pending


current_call: ContextVar[CallScope | None] = ContextVar("agentcli_current_call", default=None)
