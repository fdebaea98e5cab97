"""A served session's watchers: one that falls behind is let go (bounded memory), the others go on."""

from __future__ import annotations

import asyncio

from agentcli.driver import Driver
from agentcli.server.hub import WATCH_BACKLOG, HttpApprover, ServedSession
from agentcli.settings.config import Settings


async def lagging() -> None:
    approver = HttpApprover()
    session = ServedSession("s", Driver(Settings(), approver), approver)
    with session.watch() as slow, session.watch() as fast:
        for i in range(WATCH_BACKLOG + 5):
            session.publish({"type": "n", "i": i})
            if not fast.empty():
                await fast.get()  # this one keeps up
        assert slow.lagged and slow not in session.watchers and slow.qsize() == WATCH_BACKLOG
        assert not fast.lagged and fast in session.watchers


def test_a_lagging_watcher_is_let_go_and_the_others_go_on() -> None:
    asyncio.run(lagging())
