"""Slash commands over ACP (the built-ins that make sense there, custom commands, skills, advertised and run) and
`session/load`'s replay of tool calls with their results."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import ToolCallProgress, ToolCallStart

from agentcli.core.prompt import INIT_PROMPT
from tests.acp.inproc import TIMEOUT, Client, connected, new_session, use_fake
from tests.cli.helpers import git_repo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.skills.helpers import write_skill

REVIEW = """---
description: review a file
argument-hint: FILE
---
Review $ARGUMENTS closely.
!`git diff`
"""


def sent(fake: FakeLLM) -> str:
    """The text of the last user message the model was sent."""
    content = fake.requests[-1].body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def commands(fake: FakeLLM, proj: Path) -> None:
    client = Client()
    async with connected(client) as conn:
        sid = await new_session(conn, proj)
        await asyncio.wait_for(client.commands_told.wait(), TIMEOUT)
        told = {c.name: c for c in client.commands}
        assert {"compact", "init", "review", "greet"} <= set(told)
        assert not {"mode", "exit", "resume", "help"} & set(told)  # ACP has its own ways, or they are the REPL's
        assert told["review"].description.startswith("review a file") and told["review"].input.root.hint == "FILE"
        assert told["greet"].description == "skill"

        fake.push(Reply(text="reviewed"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("/review src/a.py")]), TIMEOUT)
        assert "Review src/a.py closely." in sent(fake)
        assert "-alpha\n+beta" in sent(fake)  # its `!`git diff`` ran as a Bash call of the session (read-only)

        fake.push(Reply(text="hello"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("/greet Ann")]), TIMEOUT)
        assert "Say hello to everyone." in sent(fake)  # the registry's skill source expanded it

        fake.push(Reply(text="initialised"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("/init mention the docs")]), TIMEOUT)
        assert INIT_PROMPT in sent(fake) and "Also: mention the docs" in sent(fake)

        fake.push(Reply(text="to the model"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("/nosuch thing")]), TIMEOUT)
        assert sent(fake) == "/nosuch thing"


def test_slash_commands_are_advertised_and_run(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n", ".claude/commands/review.md": REVIEW})
    (proj / "notes.txt").write_text("beta\n")
    write_skill(Path(os.environ["AGENTCLI_HOME"]) / "skills", "greet", "Greet people", body="Say hello to everyone.")
    asyncio.run(commands(fake_llm, proj))


async def replay(fake: FakeLLM, proj: Path) -> None:
    first = Client()
    async with connected(first) as conn:
        sid = await new_session(conn, proj)
        fake.push(Reply(tool_calls=[ToolCall("Read", {"file_path": str(proj / "notes.txt")}),
                                    ToolCall("Read", {"file_path": str(proj / "gone.txt")})]),
                  Reply(text="read them"))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("read")]), TIMEOUT)

    second = Client()
    async with connected(second) as conn:
        await asyncio.wait_for(conn.load_session(cwd=str(proj), session_id=sid, mcp_servers=[]), TIMEOUT)
        starts = second.of(ToolCallStart)
        results = {u.tool_call_id: u for u in second.of(ToolCallProgress)}
        assert [s.status for s in starts] == ["completed", "failed"]
        found, missing = (results[s.tool_call_id] for s in starts)
        assert found.status == "completed" and "alpha" in str(found.raw_output)
        assert "alpha" in found.content[0].content.text
        assert missing.status == "failed" and "does not exist" in str(missing.raw_output)
        assert second.text() == "read them"


def test_session_load_replays_tool_calls_with_their_results(tmp_path: Path, fake_llm: FakeLLM,
                                                             monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(replay(fake_llm, proj))
