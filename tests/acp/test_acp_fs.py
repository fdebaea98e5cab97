"""The file tools through the ACP client's file system (`fs/read_text_file`, `fs/write_text_file`) when the client
offers it: the model sees the editor's unsaved buffer, writes reach the editor (and the disk only if it saves them),
a write is still checkpointed (a rewind restores the file), and nothing outside the project goes to the client."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import ToolCallProgress

from tests.acp.inproc import TIMEOUT, Client, connected, new_session, use_fake
from tests.cli.helpers import git_repo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def tool_results(fake: FakeLLM) -> list[dict[str, Any]]:
    """The tool results the model was sent in the last request."""
    last = fake.requests[-1].body["messages"][-1]
    return [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)


async def prompt(conn: Any, sid: str, text: str) -> str:
    done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block(text)]), TIMEOUT)
    return str(done.stop_reason)


async def buffers_and_writes(fake: FakeLLM, proj: Path) -> None:
    notes, made = proj / "notes.txt", proj / "sub" / "made.txt"
    client = Client(fs=True, buffers={str(notes): "alpha\nunsaved beta\n"})
    async with connected(client) as conn:
        sid = await new_session(conn, proj)

        fake.push(Reply(tool_calls=[ToolCall("Read", {"file_path": str(notes)})]), Reply(text="read"))
        assert await prompt(conn, sid, "read notes") == "end_turn"
        [read] = tool_results(fake)
        assert "unsaved beta" in result_text(read) and not read.get("is_error")
        assert client.reads == [str(notes)]

        edit = ToolCall("Edit", {"file_path": str(notes), "old_string": "unsaved beta", "new_string": "gamma"})
        fake.push(Reply(tool_calls=[edit]), Reply(text="edited"))
        assert await prompt(conn, sid, "edit notes") == "end_turn"
        assert not tool_results(fake)[0].get("is_error"), tool_results(fake)
        assert client.writes == [(str(notes), "alpha\ngamma\n")]
        assert notes.read_text() == "alpha\ngamma\n"  # this client saves its buffers, as Zed does
        diff = [u for u in client.of(ToolCallProgress) if u.status == "completed"][-1]
        assert "+gamma" in json.dumps(diff.model_dump(mode="json"))  # the diff the person sees

        client.save = False  # a new file the editor keeps unsaved: it never reaches the disk
        fake.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(made), "content": "new\n"})]),
                  Reply(text="written"))
        assert await prompt(conn, sid, "write made") == "end_turn"
        assert client.writes[-1] == (str(made), "new\n") and not made.exists()
        assert made.parent.is_dir()  # its directory is made, as the Write tool promises

    from agentcli.session import layout
    from agentcli.session.rewind import rewind_stored

    directory = layout.sessions_dir(proj)
    records = [json.loads(line) for line in layout.session_file(directory, sid).read_text().splitlines()]
    before_edit = next(r for r in records if r["type"] == "checkpoint" and r["data"].get("tool_name") == "Edit")
    assert rewind_stored(directory, sid, before_edit["id"], files=True, conversation=False,
                         confirm=lambda *_: True, project=proj)
    assert notes.read_text() == "alpha\n"  # the write through the client was checkpointed


def test_reads_see_the_editors_buffer_and_writes_go_to_the_editor(tmp_path: Path, fake_llm: FakeLLM,
                                                                   monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(buffers_and_writes(fake_llm, proj))


async def outside_refused_and_failures(fake: FakeLLM, proj: Path, outside: Path) -> None:
    client = Client(answer="reject_once", fs=True,
                    buffers={str(outside): "the editor's copy", str(proj / "image.bin"): "text?",
                             str(proj / ".env"): "KEY=editor"})
    async with connected(client) as conn:
        sid = await new_session(conn, proj)
        calls = [ToolCall("Read", {"file_path": str(proj / "link.txt")}),  # a link out of the project
                 ToolCall("Read", {"file_path": str(proj / "missing.txt")}),  # no such file
                 ToolCall("Read", {"file_path": str(proj / "notes.txt")}),  # not open in the editor
                 ToolCall("Read", {"file_path": str(proj / "image.bin")}),  # binary: the disk says so
                 ToolCall("Write", {"file_path": str(outside), "content": "x"}),
                 ToolCall("Read", {"file_path": str(proj / ".env")})]  # a deny rule protects it
        fake.push(Reply(tool_calls=calls), Reply(text="done"))
        assert await prompt(conn, sid, "try them") == "end_turn"
        link, missing, closed, binary, write, env = (result_text(b) for b in tool_results(fake))
        assert "KEY" not in env and "denied" in env.lower()
        assert "editor's copy" not in link and "secret" not in link
        assert "does not exist" in missing
        assert "Cannot read" in closed and "editor could not give its text" in closed and "alpha" not in closed
        assert "binary" in binary
        assert "editor's copy" not in write
        assert client.reads == [str(proj / "notes.txt")]  # the one file in the project that is text
        assert client.writes == [] and outside.read_text() == "secret\n"

        client.answer = "allow_once"  # approved, an outside path is read from disk, never asked of the client
        fake.push(Reply(tool_calls=[ToolCall("Read", {"file_path": str(outside)})]), Reply(text="ok"))
        assert await prompt(conn, sid, "read outside") == "end_turn"
        assert "secret" in result_text(tool_results(fake)[0])
        assert client.reads == [str(proj / "notes.txt")]


def test_outside_paths_never_reach_the_client_and_its_refusals_are_errors(tmp_path: Path, fake_llm: FakeLLM,
                                                                         monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n", ".env": "KEY=disk\n"})
    (proj / "image.bin").write_bytes(b"\x89PNG\0\0binary")
    os.symlink(outside, proj / "link.txt")
    asyncio.run(outside_refused_and_failures(fake_llm, proj, outside.resolve()))


async def reads_only(fake: FakeLLM, proj: Path) -> None:
    notes = proj / "notes.txt"
    client = Client(fs=True, buffers={str(notes): "alpha\nunsaved\n"})
    async with connected(client, fs=(True, False)) as conn:
        sid = await new_session(conn, proj)
        fake.push(Reply(tool_calls=[ToolCall("Read", {"file_path": str(notes)})]),
                  Reply(tool_calls=[ToolCall("Write", {"file_path": str(notes), "content": "beta\n"})]),
                  Reply(text="done"))
        assert await prompt(conn, sid, "read, then write") == "end_turn"
        # the Read, the check that the buffer is unchanged before the person is asked, the Write's old text
        assert client.reads == [str(notes)] * 3
        assert client.writes == [] and notes.read_text() == "beta\n"


def test_a_client_that_offers_reading_only_gets_no_writes(tmp_path: Path, fake_llm: FakeLLM,
                                                          monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(reads_only(fake_llm, proj))


async def edits_in_the_buffer(fake: FakeLLM, proj: Path) -> None:
    notes = proj / "notes.txt"
    client = Client(fs=True, buffers={str(notes): "alpha\nunsaved beta\n"}, save=False)
    read = ToolCall("Read", {"file_path": str(notes)})
    async with connected(client) as conn:
        sid = await new_session(conn, proj)
        fake.push(Reply(tool_calls=[read]), Reply(text="read"))
        assert await prompt(conn, sid, "read notes") == "end_turn"

        edit = ToolCall("Edit", {"file_path": str(notes), "old_string": "unsaved beta", "new_string": "gamma"})
        fake.push(Reply(tool_calls=[edit]), Reply(text="edited"))
        assert await prompt(conn, sid, "edit notes") == "end_turn"
        assert not tool_results(fake)[0].get("is_error"), tool_results(fake)
        assert client.buffers[str(notes)] == "alpha\ngamma\n" and notes.read_text() == "alpha\n"

        client.buffers[str(notes)] = "alpha\ngamma\nthe person's line\n"  # typed in the editor, not saved
        again = ToolCall("Edit", {"file_path": str(notes), "old_string": "gamma", "new_string": "delta"})
        fake.push(Reply(tool_calls=[again]), Reply(text="refused"))
        asked = len(client.asked)
        assert await prompt(conn, sid, "edit again") == "end_turn"
        [refused] = tool_results(fake)
        assert refused.get("is_error") and "modified since it was last read" in result_text(refused)
        assert len(client.asked) == asked > 0  # refused before the person was asked to approve it
        assert client.buffers[str(notes)] == "alpha\ngamma\nthe person's line\n"  # the person's text kept

        fake.push(Reply(tool_calls=[read]), Reply(text="read"))
        assert await prompt(conn, sid, "read it again") == "end_turn"
        notes.write_text("alpha\nby a command\n")  # the disk changes; the editor has not reloaded its buffer yet
        os.utime(notes, ns=(1, 1))  # a time the read cannot have seen, whatever the file system's granularity
        fake.push(Reply(tool_calls=[again]), Reply(text="refused"))
        assert await prompt(conn, sid, "edit once more") == "end_turn"
        [refused] = tool_results(fake)
        assert refused.get("is_error") and "modified since it was last read" in result_text(refused)
        assert notes.read_text() == "alpha\nby a command\n"


def test_an_edit_checks_the_buffer_the_model_read_and_the_disk(tmp_path: Path, fake_llm: FakeLLM,
                                                               monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(edits_in_the_buffer(fake_llm, proj))


async def unsaved_write_then_edit(fake: FakeLLM, proj: Path) -> None:
    made = proj / "sub" / "made.txt"
    client = Client(fs=True, save=False)
    async with connected(client) as conn:
        sid = await new_session(conn, proj)
        edit = ToolCall("Edit", {"file_path": str(made), "old_string": "one", "new_string": "two"})
        fake.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(made), "content": "one\n"})]),
                  Reply(tool_calls=[edit]), Reply(tool_calls=[ToolCall("Read", {"file_path": str(made)})]),
                  Reply(text="done"))
        assert await prompt(conn, sid, "write, edit, read") == "end_turn"
        assert not made.exists()  # all of it in the editor's buffer
        assert client.writes == [(str(made), "one\n"), (str(made), "two\n")]
        edited, read = (fake.requests[i].body["messages"][-1]["content"][0] for i in (2, 3))
        assert not edited.get("is_error") and "two" in result_text(edited), edited
        assert not read.get("is_error") and "1\ttwo" in result_text(read), read

        client.buffers[str(made)] = "two\nthree\n"  # the person adds a line
        fake.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(made), "content": "four\n"})]),
                  Reply(text="refused"))
        assert await prompt(conn, sid, "overwrite") == "end_turn"
        [refused] = tool_results(fake)
        assert refused.get("is_error") and "modified since it was last read" in result_text(refused)
        assert client.buffers[str(made)] == "two\nthree\n"


def test_a_write_the_editor_keeps_unsaved_can_be_edited_and_read(tmp_path: Path, fake_llm: FakeLLM,
                                                                  monkeypatch: Any) -> None:
    use_fake(fake_llm, monkeypatch)
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    asyncio.run(unsaved_write_then_edit(fake_llm, proj))
