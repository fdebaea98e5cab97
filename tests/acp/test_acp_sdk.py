"""`agentcli acp` driven by the official ACP SDK's own client side (agent-client-protocol) over real stdio,
against the fake LLM server: initialize, session/new, a streamed reply, a tool call that needs permission,
session/cancel mid-turn, and session/load after the agent restarts."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.core import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    ClientCapabilities,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from tests.cli.helpers import ANTHROPIC, git_repo, provider_env
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60


class Client:
    """An ACP client that records every update and answers permission requests with `answer`."""

    def __init__(self, answer: str = "allow_once") -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.asked: list[Any] = []

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **_: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, [o.option_id for o in options]))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.answer))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    def text(self, kind: type = AgentMessageChunk) -> str:
        return "".join(u.content.text for u in self.updates if isinstance(u, kind))

    def on_connect(self, conn: Any) -> None:
        pass


@asynccontextmanager
async def agent(fake: FakeLLM, proj: Path, client: Client) -> AsyncIterator[ClientSideConnection]:
    env = {**os.environ, **provider_env(fake, ANTHROPIC), "PYTHONPATH": str(ROOT)}
    # The SDK closes the agent's stdin, then waits 2 s before SIGTERM: under load agentcli's exit took longer
    # (up to ~5 s with an MCP server), so which way it ended was the machine's choice. Wait for the exit itself.
    async with spawn_agent_process(client, sys.executable, "-m", "agentcli", "acp", "--model", ANTHROPIC,
                                   env=env, cwd=proj, transport_kwargs={"shutdown_timeout": TIMEOUT}) as (conn, proc):
        init = await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION,
                                                      client_capabilities=ClientCapabilities()), TIMEOUT)
        assert init.agent_capabilities is not None and init.agent_capabilities.load_session
        yield conn
    assert proc.returncode == 0, f"agentcli acp did not end by itself when its stdin closed: {proc.returncode}"


async def scenario(fake: FakeLLM, proj: Path) -> None:
    first = Client()
    async with agent(fake, proj, first) as conn:
        new = await asyncio.wait_for(conn.new_session(cwd=str(proj), mcp_servers=[]), TIMEOUT)
        sid = new.session_id
        assert new.modes is not None and {m.id for m in new.modes.available_modes} >= {"default", "plan"}

        fake.push(Reply(text="hello from the fake"))
        done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("say hi")]), TIMEOUT)
        assert done.stop_reason == "end_turn"
        assert first.text() == "hello from the fake"

        target = proj / "made.txt"
        fake.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(target), "content": "made\n"})]),
                  Reply(text="written"))
        done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("write it")]), TIMEOUT)
        assert done.stop_reason == "end_turn"
        assert target.read_text() == "made\n"
        call, options = first.asked[0]
        assert call.kind == "edit" and options == ["allow_once", "allow_always", "reject_once"]
        starts = [u for u in first.updates if isinstance(u, ToolCallStart)]
        assert starts and starts[0].kind == "edit" and starts[0].locations[0].path == str(target)
        assert starts[0].content  # the diff
        assert any(isinstance(u, ToolCallProgress) and u.status == "completed" for u in first.updates)

        before = len(fake.requests)
        fake.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("wait forever")]))
        assert await asyncio.to_thread(fake.wait_for_requests, before + 1, TIMEOUT)
        await conn.cancel(session_id=sid)
        stopped = await asyncio.wait_for(turn, TIMEOUT)
        assert stopped.stop_reason == "cancelled"

    second = Client()
    async with agent(fake, proj, second) as conn:
        listed = await asyncio.wait_for(conn.list_sessions(cwd=str(proj)), TIMEOUT)
        assert sid in [s.session_id for s in listed.sessions]
        await asyncio.wait_for(conn.load_session(cwd=str(proj), session_id=sid, mcp_servers=[]), TIMEOUT)
        assert "say hi" in second.text(UserMessageChunk)
        assert "hello from the fake" in second.text()
        fake.push(Reply(text="still here"))
        done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("again")]), TIMEOUT)
        assert done.stop_reason == "end_turn"
        assert "say hi" in str(fake.requests[-1].body["messages"])


def test_acp_sdk_client_multi_turn_permission_cancel_and_load(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(scenario(fake_llm, proj))


async def modes_rules_plans_and_mcp(fake: FakeLLM, proj: Path) -> None:
    from acp.schema import EnvVariable, McpServerStdio

    client = Client(answer="allow_always")
    time_server = McpServerStdio(name="clock", command=str(Path(sys.executable).with_name("mcp-server-time")),
                                 args=[], env=[EnvVariable(name="TZ", value="UTC")])
    async with agent(fake, proj, client) as conn:
        sid = (await asyncio.wait_for(conn.new_session(cwd=str(proj), mcp_servers=[time_server]),
                                      TIMEOUT)).session_id
        # allow always (this session): the same command is asked about once
        echo = ToolCall("Bash", {"command": "touch same.txt"})
        fake.push(Reply(tool_calls=[echo]), Reply(tool_calls=[echo]), Reply(text="twice"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("echo twice")]), TIMEOUT)
        assert len(client.asked) == 1

        # plan mode: an edit is refused by the mode, nobody is asked
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        target = proj / "planned.txt"
        fake.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(target), "content": "x\n"})]),
                  Reply(text="planned"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("plan it")]), TIMEOUT)
        assert not target.exists() and len(client.asked) == 1

        # acceptEdits: the edit runs without a question; an unknown mode is refused
        await conn.set_session_mode(session_id=sid, mode_id="acceptEdits")
        fake.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(target), "content": "x\n"})]),
                  Reply(text="done"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("write")]), TIMEOUT)
        assert target.read_text() == "x\n" and len(client.asked) == 1
        try:
            await conn.set_session_mode(session_id=sid, mode_id="bypassPermissions")
        except RequestError as err:
            assert "unknown mode" in json.dumps(err.data)
        else:
            raise AssertionError("bypassPermissions is no ACP mode here")


def test_acp_modes_session_rules_plans_and_client_mcp(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(modes_rules_plans_and_mcp(fake_llm, proj))


def test_the_clients_mcp_servers_join_the_users(tmp_path: Path) -> None:
    from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio

    from agentcli.acp.settings import session_settings
    from agentcli.mcp.config import load

    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    servers = [McpServerStdio(name="clock", command="/bin/clock", args=["--utc"],
                              env=[EnvVariable(name="TZ", value="UTC")]),
               HttpMcpServer(type="http", name="docs", url="http://127.0.0.1:9/mcp",
                             headers=[HttpHeader(name="X-Key", value="k")])]
    settings = session_settings(str(proj), {}, servers, session_id="00000000-0000-4000-8000-000000000001")
    config = load(settings.project_root, settings.mcp.config, settings.mcp.strict_config)
    assert {"clock", "docs"} <= set(config.servers) and not config.problems


def test_todowrite_is_an_acp_plan() -> None:
    from acp.schema import AgentPlanUpdate

    from agentcli.acp.updates import updates_for
    from agentcli.core.events import TodoItem, TodosUpdated

    [plan] = updates_for(TodosUpdated((TodoItem("look", "in_progress", "looking"), TodoItem("fix", "odd", "x"))))
    assert isinstance(plan, AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [("look", "in_progress"), ("fix", "pending")]
