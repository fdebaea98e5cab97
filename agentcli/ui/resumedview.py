"""A resumed session in the REPL (`--resume`, `--continue`, `/resume`): which session is checked before the
prompt; once the prompt is up its history is drawn above it (agentcli.ui.resume), and its agent, built behind
it, is adopted as soon as it exists — not at the first prompt, as a fresh session's is. Owned by the `Repl`
(agentcli.ui.repl), which it reads and calls back (`Building`)."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from typing import TYPE_CHECKING, Protocol

from agentcli.ui.host import ReplHost

if TYPE_CHECKING:
    from agentcli.assembly.runtime import Built
    from agentcli.settings.config import Settings


class Building(ReplHost, Protocol):
    """What a resumed view needs of its REPL beyond `ReplHost`: the agent's build in the background."""

    building: asyncio.Task[Built] | None

    def start_building(self) -> None: ...


class ResumedView:
    def __init__(self, repl: Building) -> None:
        self.repl = repl
        self.active = False  # this REPL's session is a resumed one
        self._showing: asyncio.Task[None] | None = None  # drawing its history
        self._adopting: asyncio.Task[None] | None = None  # then adopting its agent once built
        self.notices: list[str] = []  # its notices, shown with the history before its agent was built

    async def resolve_at_start(self) -> bool:
        """`--resume` / `--continue`: before the prompt only which session, and that it can be resumed (a
        session unknown or in use is reported here and ends the REPL with status 1). Its history is read and
        drawn, and then its agent built, once the prompt is up (`start`)."""
        repl = self.repl
        if repl.settings.session.resume == "":
            from agentcli.ui.actions import pick_session

            picked = await pick_session(repl)
            if picked is None:
                return False
            from agentcli.assembly.firstrun import anything_configured, first_run_message
            from agentcli.assembly.resumed import with_session_setup
            from agentcli.errors import ConfigError

            session = dataclasses.replace(repl.settings.session, resume=picked)
            repl.settings = with_session_setup(dataclasses.replace(repl.settings, session=session))
            m = repl.settings.model
            if not anything_configured(m.name, m.provider, m.base_url):  # a session that stored no provider
                repl.error(ConfigError(first_run_message([]), code="no_provider"))
                return False
        from agentcli.ui.resume import resolve_stored

        try:
            repl.settings = resolve_stored(repl.settings)
        except Exception as err:  # as a failed build was: shown, and the REPL ends with status 1
            repl.error(err)
            return False
        self.active = True
        return True

    def begin(self) -> None:
        """Another stored session (`/resume`) takes this one's place: drawn when the prompt is back."""
        self.cancel()
        self.active, self._showing, self._adopting = True, None, None

    def start(self) -> None:
        """The prompt is up (or about to be): draw the resumed session's history, once."""
        if self.active and self._showing is None:
            self._showing = asyncio.create_task(self._show(self.repl.settings))

    def cancel(self) -> None:
        for task in (self._showing, self._adopting):
            if task is not None:
                task.cancel()

    async def shown(self) -> bool:
        """The history is on the screen: what is printed next goes below it. True if it was not yet (it has just
        been drawn)."""
        self.start()
        if self._showing is None or self._showing.done():
            return False
        await asyncio.wait({self._showing})
        return True

    async def _show(self, settings: Settings) -> None:
        """The transcript is read (from its last compaction on), and rich, the renderer and the markdown stack
        load and render it, in a worker thread while the prompt takes keys; the result is written at once. Then
        its agent is built and adopted (`_adopt_when_built`)."""
        from prompt_toolkit.application import in_terminal

        from agentcli.ui.resume import draw_stored

        repl = self.repl
        failed: Exception | None = None
        try:
            # (console and renderer are created there too: their imports are most of the cost)
            text, self.notices = await asyncio.to_thread(lambda: draw_stored(repl.console, repl.renderer, settings))
        except Exception as err:  # the file could not be read after all: the build will say more
            text, failed = "", err
        async with in_terminal():
            sys.stdout.write(text)
            sys.stdout.flush()
            if failed is not None:
                repl.error(failed)
        repl.start_building()
        self._adopting = asyncio.create_task(self._adopt_when_built())

    async def _adopt_when_built(self) -> None:
        """Its notices, the status line's context and cost appear above the prompt as soon as it is built."""
        from prompt_toolkit.application import in_terminal

        repl = self.repl
        task = repl.building
        if task is not None:
            await asyncio.wait({task})
            if repl.agent is None and repl.building is task:
                async with in_terminal():
                    await repl.ensure_agent()
