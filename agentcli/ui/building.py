"""The REPL's agent from outside the turn loop: what is preloaded while the prompt is up, the approver it is
built with, and how it ends."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from agentcli.assembly.runtime import Built
    from agentcli.core.permissions import Approval, ApprovalRequest, Approver
    from agentcli.settings.config import Settings
    from agentcli.ui.keys import TurnKeys
    from agentcli.ui.render import Renderer


class Asker(Protocol):
    """What the REPL's approvers use of the session (agentcli.ui.repl.Repl): its keys, screen and turn."""

    root: Path
    keys: TurnKeys
    turn: asyncio.Task[Any] | None

    @property
    def console(self) -> Console: ...

    @property
    def renderer(self) -> Renderer: ...

    def show_plan(self, plan: str) -> None: ...

    def cancel_turn(self) -> None: ...


async def end(built: Built, reason: str) -> None:
    """End an agent (`Agent.aclose`: its background shells, SessionEnd hooks with `reason`, its provider and
    sandbox proxy), then its session file."""
    with contextlib.suppress(Exception):
        await built.agent.aclose(reason)
    with contextlib.suppress(Exception):
        built.session.close_or_discard()


def preload(settings: Settings) -> None:
    """Import what the first turn needs (runtime, session store, the provider's adapter, tools, markdown) in a
    worker thread, so the prompt keeps echoing keys while it loads."""
    import importlib

    for name in ("agentcli.assembly.runtime", "agentcli.session.store", "agentcli.core.toolrun"):
        importlib.import_module(name)
    from agentcli.assembly import selection
    from agentcli.providers import factory
    from agentcli.tools.registry import DEFAULT_TOOLS, load_tool

    with contextlib.suppress(Exception):  # a bad setting is reported by the real build, not here
        provider, _ = selection.choose(settings.model.name, settings.model.provider, settings.model.base_url)
        if provider:
            factory.provider_class(provider)
    for tool in DEFAULT_TOOLS:
        with contextlib.suppress(Exception):
            load_tool(tool)
    from agentcli.ui.render import markdown_warmup

    markdown_warmup()


class PausingApprover:
    """Wraps the terminal approver: the live region and the turn's key reader step aside while it asks."""

    interactive = True

    def __init__(self, repl: Asker, inner: Approver) -> None:
        self.repl = repl
        self.inner = inner

    async def approve(self, request: ApprovalRequest) -> Approval:
        with self.paused():
            return await self.inner.approve(request)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The spinner and the turn's key reader step aside while a question is open."""
        self.repl.keys.stop()
        self.repl.renderer.pause()
        try:
            yield
        finally:
            self.repl.renderer.resume()
            if self.repl.turn is not None:
                self.repl.keys.start()


def make_approver(repl: Asker) -> Approver:
    """The permissions helper's TerminalApprover (agentcli.ui.approval), or a plain y/n question without it."""
    import importlib

    try:
        module = importlib.import_module("agentcli.ui.approval")
    except ImportError:
        return _AskApprover(repl.console)
    approver: Approver = module.TerminalApprover(repl.root, show_plan=repl.show_plan, stop_turn=repl.cancel_turn)
    return approver


class _AskApprover:
    interactive = True

    def __init__(self, console: Console) -> None:
        self.console = console

    async def approve(self, request: ApprovalRequest) -> Approval:
        from agentcli.core.permissions import Approval
        from agentcli.ui.toolfmt import key_argument

        if request.kind == "plan":
            self.console.print(request.plan or "", markup=False, highlight=False)
            answer = await asyncio.to_thread(self.console.input, "Approve this plan? [y/N] ")
            if answer.strip().lower() in ("y", "yes"):
                return Approval("allow", mode="default")
            return Approval("deny", reason="The user did not approve the plan.")
        arg = key_argument(request.tool_name, request.input)
        question = f"Allow {request.tool_name}({arg})? [y/N] "
        answer = await asyncio.to_thread(self.console.input, question)
        if answer.strip().lower() in ("y", "yes"):
            return Approval("allow")
        return Approval("deny", reason=f"The user denied {request.tool_name}.")
