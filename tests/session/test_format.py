from __future__ import annotations

import json
import os
from pathlib import Path

from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session import layout
from agentcli.session.reader import load, read_file
from agentcli.session.records import SCHEMA_VERSION
from agentcli.session.store import open_session
from agentcli.session.writer import SessionWriter
from tests.session.helpers import text_turn


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_header_and_records_form_a_chain(project: Path) -> None:
    s = open_session(project, model="m1", provider="anthropic", name="first")
    assert s.writer is not None
    u, a = text_turn(s.writer, "hello", "hi there")
    rid = s.writer.record("permission", {"tool": "Bash", "behavior": "allow"})
    s.close()
    path = layout.session_file(layout.sessions_dir(project), s.session_id)
    lines = _lines(path)
    head = lines[0]
    assert head["type"] == "session" and head["schema_version"] == SCHEMA_VERSION
    assert head["id"] == s.session_id and head["model"] == "m1" and head["provider"] == "anthropic"
    assert head["name"] == "first" and head["cwd"] and head["created"]
    assert [r["id"] for r in lines[1:]] == [u, a, rid]
    assert [r["parent_id"] for r in lines[1:]] == [None, u, a]
    for r in lines[1:]:
        assert set(r) >= {"id", "parent_id", "type", "ts"}
    assert lines[2]["message"] == {"role": "assistant", "content": [{"type": "text", "text": "hi there"}]}
    assert lines[2]["meta"] == {"model": "m1"}
    assert lines[3]["data"] == {"tool": "Bash", "behavior": "allow"}
    assert path.stat().st_mode & 0o777 == 0o600


def test_git_branch_in_header(project: Path) -> None:
    from tests.session.conftest import git_init

    git_init(project)
    s = open_session(project)
    s.close()
    head = _lines(layout.session_file(layout.sessions_dir(project), s.session_id))[0]
    assert head["git_branch"] == "main"


def test_torn_last_line_is_reported_ignored_and_fenced_off(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    text_turn(s.writer, "one", "uno")
    s.close()
    path = layout.session_file(layout.sessions_dir(project), s.session_id)
    with path.open("ab") as f:
        f.write(b'{"type":"message","id":"abc","parent_id":"x","message":{"role":"us')
    parsed = read_file(path)
    assert [p.kind for p in parsed.problems] == ["torn"]
    assert len(parsed.records) == 2
    r = open_session(project, resume=s.session_id)
    assert any("torn" in n for n in r.notices)
    assert [m.text for m in r.history] == ["one", "uno"]
    assert r.writer is not None
    text_turn(r.writer, "two", "dos")
    r.close()
    loaded = load(layout.sessions_dir(project), s.session_id)
    assert [m.text for m in loaded.messages()] == ["one", "uno", "two", "dos"]
    assert sum(1 for p in read_file(path).problems if p.kind == "corrupt") == 1


def test_corrupt_middle_line_does_not_hide_history(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    text_turn(s.writer, "one", "uno")
    os.write(os.open(s.writer.path, os.O_WRONLY | os.O_APPEND), b"garbage\n")
    text_turn(s.writer, "two", "dos")
    s.close()
    lines = s.writer.path.read_text().splitlines()
    # Make "two" point at a record that is gone, as if its parent's line had been lost.
    rec = json.loads(lines[-2])
    rec["parent_id"] = "lost"
    lines[-2] = json.dumps(rec)
    s.writer.path.write_text("\n".join(lines) + "\n")
    loaded = load(layout.sessions_dir(project), s.session_id)
    assert [m.text for m in loaded.messages()] == ["one", "uno", "two", "dos"]
    assert any("missing record" in p for p in loaded.problems)


def test_message_meta_accepts_dataclasses(project: Path) -> None:
    from agentcli.llm.messages import Usage

    s = open_session(project)
    assert s.writer is not None
    s.writer.message(Message("assistant", (TextBlock("x"),)), usage=Usage(1, 2))
    s.close()
    rec = _lines(s.writer.path)[1]
    assert rec["meta"]["usage"]["input_tokens"] == 1  # type: ignore[index]


def test_every_append_is_one_write(project: Path, tmp_path: Path) -> None:
    from agentcli.redact import Redactor

    path = tmp_path / "s.jsonl"
    w = SessionWriter(path, "sid", redactor=Redactor())
    big = "x" * 200_000
    w.message(Message("user", (ToolResultBlock("t", big),)))
    w.message(Message("assistant", (ToolUseBlock("t2", "Read", {"path": "a"}),)))
    w.close()
    assert [r["type"] for r in _lines(path)] == ["message", "message"]
