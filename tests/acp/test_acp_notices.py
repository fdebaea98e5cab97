"""agentcli's notices reach an ACP client, each once a session: the start-up's (settings not trusted) right after
`session/new`, a failed MCP server's in the first turn, what a prompt left out in its turn; as agent messages
marked as agentcli's (a quoted `⚠ agentcli:` paragraph with `_meta`), never as the model's words."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import image_block, text_block
from acp.schema import AgentMessageChunk, McpServerStdio

from tests.acp.inproc import TIMEOUT, Client, connected, use_fake
from tests.cli.helpers import git_repo
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM


def notices(client: Client) -> list[str]:
    """The text of every notice the client was sent."""
    return [u.content.text for u in client.of(AgentMessageChunk) if (u.field_meta or {}).get("agentcli")]


async def told_once(fake: FakeLLM, proj: Path, missing: Path) -> None:
    client = Client()
    servers = [McpServerStdio(name="gone", command=str(missing), args=[], env=[])]
    async with connected(client) as conn:
        sid = (await asyncio.wait_for(conn.new_session(cwd=str(proj), mcp_servers=servers), TIMEOUT)).session_id
        await asyncio.wait_for(client.commands_told.wait(), TIMEOUT)  # sent after the start-up notices
        [trust] = notices(client)  # before any prompt
        assert trust.startswith("\n\n> ⚠ agentcli: This project's settings (.agentcli/) are not trusted")
        assert client.of(AgentMessageChunk)[0].field_meta == {"agentcli": {"notice": "warning"}}

        fake.push(Reply(text="first answer"), Reply(text="second answer"))
        with_image = [text_block("hello"), image_block("AAAA", "image/png")]  # agentcli does not take images
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=with_image), TIMEOUT)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("again")]), TIMEOUT)

    told = notices(client)
    assert len(told) == 3, told  # the trust notice is not repeated by the first turn
    assert sum("not trusted" in t for t in told) == 1
    assert sum("MCP server 'gone' failed" in t for t in told) == 1
    assert sum("left out of the prompt: the image block" in t for t in told) == 1
    assert "first answer" in client.text() and "second answer" in client.text()
    assert not any("agentcli:" in u.content.text for u in client.of(AgentMessageChunk) if u.field_meta is None)


def test_notices_reach_the_client_once_each(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {".agentcli/settings.toml": '[permissions]\nallow = ["Bash"]\n'})
    asyncio.run(told_once(fake_llm, proj, tmp_path / "no-such-server"))
