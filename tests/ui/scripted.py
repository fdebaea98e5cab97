"""An in-process provider that plays scripted stream events and records every request (a test double)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path

from rich.console import Console

from agentcli.assembly.runtime import Built
from agentcli.assembly.selection import Selection
from agentcli.core.events import MessageStop, StreamEvent, TextDelta, UsageReport
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import Approval, ApprovalRequest, SimplePolicy
from agentcli.core.sink import NullSink
from agentcli.llm.messages import Usage
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.session.store import OpenedSession
from agentcli.settings.config import Settings
from agentcli.settings.sections import ModelSettings
from agentcli.skills.commands import CommandSource
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from agentcli.ui.repl import Repl

Script = list[StreamEvent | None]


class ScriptedProvider:
    name = "scripted"

    def __init__(self, replies: list[Script]) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []
        self.stalled = asyncio.Event()
        self.closed = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Plays the next reply; a `None` in it stalls the stream until the caller cancels."""
        self.requests.append(request)
        events = self.replies.pop(0) if self.replies else text_reply("ok")
        for ev in events:
            if ev is None:
                self.stalled.set()
                await asyncio.Event().wait()
            else:
                yield ev

    async def aclose(self) -> None:
        self.closed = True


def text_reply(text: str) -> Script:
    return [TextDelta(text), UsageReport(Usage(100, 5)), MessageStop("end_turn")]


def make_repl(tmp_path: Path, provider: ScriptedProvider, width: int = 80,
              window: int = 1000) -> tuple[Repl, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False, color_system=None)
    settings = Settings(cwd=tmp_path, model=ModelSettings(name="scripted-model", provider="scripted"))
    repl = Repl(settings, console=console)
    agent = Agent(
        provider=provider,
        registry=ToolRegistry(["Read", "Bash"]),
        policy=SimplePolicy(),
        approver=_Deny(),
        ctx=ToolContext(project_root=tmp_path, shell_cwd=tmp_path),
        options=AgentOptions(model="scripted-model", provider_name="scripted", context_window_fn=lambda m: window),
        sink=NullSink("sess-1"),
    )
    agent.registry.sources.append(CommandSource(tmp_path, agent.ctx))  # as the assembly attaches it
    selection = Selection(ProviderConfig("scripted"), "scripted-model")
    repl.adopt(Built(agent, selection, OpenedSession("sess-1", agent.sink)))
    return repl, out


class _Deny:
    async def approve(self, request: ApprovalRequest) -> Approval:
        return Approval("deny", reason="test")
