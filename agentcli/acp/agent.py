"""The ACP Agent: initialize, session/new, session/load, session/list, modes, prompt turns and cancel, each
session driven by one agentcli Driver."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
)

from agentcli.acp.approver import AcpApprover
from agentcli.acp.commands import available, expand
from agentcli.acp.files import ClientFiles
from agentcli.acp.settings import session_settings
from agentcli.acp.updates import Update, history_updates, notice_update, updates_for
from agentcli.core.events import RunFinished
from agentcli.driver import Driver
from agentcli.errors import AgentCliError
from agentcli.ids import new_uuid
from agentcli.version import __version__

if TYPE_CHECKING:
    from acp import Client

MODES = {
    "default": "Ask before edits and commands",
    "acceptEdits": "Edit files without asking; ask before commands",
    "plan": "Read only: plan, then ask to go ahead",
}


@dataclass
class Session:
    driver: Driver
    approver: AcpApprover
    later: asyncio.Task[None] | None = None
    commands: list[AvailableCommand] | None = None  # the slash commands the client was last told of


class AcpAgent:
    """One ACP connection. `flags`: the settings given on `agentcli acp`'s command line (model, provider …)."""

    def __init__(self, flags: dict[str, Any]) -> None:
        self.flags = flags
        self.client: Client | None = None
        self.sessions: dict[str, Session] = {}
        self.fs = (False, False)  # the client offers fs/read_text_file, fs/write_text_file (its `initialize`)

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **_: Any) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.fs = (getattr(fs, "read_text_file", None) is True, getattr(fs, "write_text_file", None) is True)
        caps = AgentCapabilities(
            load_session=True, prompt_capabilities=PromptCapabilities(embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()))
        return InitializeResponse(protocol_version=min(protocol_version, PROTOCOL_VERSION), agent_capabilities=caps,
                                  agent_info=Implementation(name="agentcli", title="agentcli", version=__version__))

    async def authenticate(self, method_id: str, **_: Any) -> None:
        return None  # providers are configured in agentcli's own settings

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None, **_: Any) -> NewSessionResponse:
        sid = new_uuid()
        session = await self._open(sid, cwd, mcp_servers, session_id=sid)
        self._announce(sid, session)
        return NewSessionResponse(session_id=sid, modes=_modes(session.driver.settings.permissions.mode))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None, **_: Any) -> LoadSessionResponse:
        session = await self._open(session_id, cwd, mcp_servers, resume=session_id)
        for update in history_updates(session.driver.agent.messages):
            await self._send(session_id, update)
        self._announce(session_id, session)
        return LoadSessionResponse(modes=_modes(session.driver.agent.mode))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **_: Any) -> ListSessionsResponse:
        from pathlib import Path

        from agentcli import paths
        from agentcli.session import layout
        from agentcli.session.index import list_sessions

        root = paths.find_project_root(Path(cwd) if cwd else Path.cwd())
        found = sorted(list_sessions(layout.sessions_dir(root)), key=lambda s: -s.updated)
        return ListSessionsResponse(sessions=[SessionInfo(
            session_id=s.id, cwd=s.cwd or str(root), title=s.name or s.first_prompt[:80] or None,
            updated_at=datetime.datetime.fromtimestamp(s.updated, datetime.UTC).isoformat()) for s in found])

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        if mode_id not in MODES:
            raise RequestError.invalid_params({"modeId": f"unknown mode {mode_id!r}; one of {', '.join(MODES)}"})
        session.driver.agent.set_mode(mode_id)
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._session(session_id)
        driver = session.driver
        text, left_out = _prompt_text(prompt)
        asked = expand(text, driver.settings.project_root)
        for told in left_out:
            await self._send(session_id, notice_update("warning", told))
        run = driver.compact(asked.text or None) if asked.compact else driver.run(asked.text)
        stop = "end_turn"
        mode = driver.agent.mode
        async with contextlib.aclosing(run) as events:
            async for event in events:
                for update in updates_for(event):
                    await self._send(session_id, update)
                if driver.agent.mode != mode:
                    mode = driver.agent.mode
                    await self._send(session_id, CurrentModeUpdate(session_update="current_mode_update",
                                                                   current_mode_id=mode))
                if isinstance(event, RunFinished):
                    stop = _stop_reason(event.result.subtype, event.result.error_code)
                    if event.result.is_error and stop == "end_turn":
                        raise RequestError.internal_error({"message": event.result.error_message,
                                                           "code": event.result.error_code})
        await self._advertise(session_id, session)  # an MCP server's prompts may have arrived meanwhile
        return PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.driver.interrupt()

    async def close(self) -> None:
        for session in self.sessions.values():
            await session.driver.aclose()
        self.sessions.clear()

    # ---- helpers -------------------------------------------------------------------------------------------

    async def _open(self, sid: str, cwd: str, mcp_servers: list[Any] | None, **which: str) -> Session:
        if sid in self.sessions:
            old = self.sessions.pop(sid)
            await old.driver.aclose()
        try:
            settings = session_settings(cwd, self.flags, mcp_servers, **which)
        except AgentCliError as err:
            raise RequestError.invalid_params({"message": err.one_line(), "code": err.code}) from None
        approver = AcpApprover(sid, settings.project_root)
        approver.client = self.client
        driver = Driver(settings, approver, files=self._files(sid))
        failed = await driver.start()
        if failed is not None:
            raise RequestError.internal_error({"message": failed.error_message, "code": failed.error_code})
        session = self.sessions[sid] = Session(driver, approver)
        return session

    def _announce(self, sid: str, session: Session) -> None:
        """The start-up notices (settings not trusted, no sandbox, hooks or tools dropped …) and the slash
        commands, once, right after the response that tells the client the session's id (as other ACP agents
        send their commands): the caller returns at once, so the response is queued first."""

        async def announce() -> None:
            for notice in session.driver.take_notices():  # taken now: a first prompt does not repeat them
                await self._send(sid, notice_update(notice.level, notice.text, notice.code))
            await self._advertise(sid, session)

        session.later = asyncio.get_running_loop().create_task(announce())

    async def _advertise(self, sid: str, session: Session) -> None:
        """The session's slash commands, when they are not what the client was last told."""
        commands = available(session.driver.agent, session.driver.settings.project_root)
        if commands != session.commands:
            session.commands = commands
            await self._send(sid, AvailableCommandsUpdate(session_update="available_commands_update",
                                                          available_commands=commands))

    def _files(self, sid: str) -> ClientFiles | None:
        """The client's file system for the file tools' text, when it offers reading or writing."""
        read, write = self.fs
        if self.client is None or not (read or write):
            return None
        return ClientFiles(self.client, sid, read=read, write=write)

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    async def _send(self, session_id: str, update: Update | AvailableCommandsUpdate | CurrentModeUpdate) -> None:
        if self.client is not None:
            await self.client.session_update(session_id=session_id, update=update)


def _modes(current: str) -> SessionModeState:
    return SessionModeState(current_mode_id=current if current in MODES else "default",
                            available_modes=[SessionMode(id=k, name=k, description=v) for k, v in MODES.items()])


def _prompt_text(blocks: list[Any]) -> tuple[str, list[str]]:
    """The prompt's text; embedded resources (a file the editor attached) and links are given as text too. And
    what was left out, to be said: images, audio and binary resources (agentcli offers none of them in
    `promptCapabilities`, but a client may send them anyway)."""
    parts: list[str] = []
    left_out: list[str] = []
    for block in blocks:
        data = block.model_dump(by_alias=True, exclude_none=True)
        if data.get("type") == "text":
            parts.append(data["text"])
        elif data.get("type") == "resource":
            res = data.get("resource", {})
            if isinstance(res.get("text"), str):
                parts.append(f"<file uri=\"{res.get('uri', '')}\">\n{res['text']}\n</file>")
            else:
                left_out.append(f"the attached {res.get('uri') or 'resource'} (not text)")
        elif data.get("type") == "resource_link":
            parts.append(f"@{data.get('uri', '')}")
        else:
            left_out.append(f"the {data.get('type', 'unknown')} block")
    told = [f"left out of the prompt: {what} (agentcli takes text, text files and links over ACP)"
            for what in left_out]
    return "\n".join(parts), told


def _stop_reason(subtype: str, code: str | None) -> str:
    if code in ("interrupted", "terminated"):
        return "cancelled"
    if subtype == "error_max_turns":
        return "max_turn_requests"
    return "end_turn"
