from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.core.sink import NullSink
from agentcli.errors import SessionNotFoundError, UsageError
from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session import layout
from agentcli.session.reader import iter_replay, load
from agentcli.session.repair import INTERRUPTED
from agentcli.session.store import open_session
from tests.session.helpers import text_turn


def _new(project: Path, prompt: str, answer: str, **kw: object) -> str:
    s = open_session(project, model="m1", provider="anthropic", **kw)  # type: ignore[arg-type]
    assert s.writer is not None
    text_turn(s.writer, prompt, answer)
    s.close()
    return s.session_id


def test_continue_picks_latest_and_appends_to_the_same_file(project: Path) -> None:
    _new(project, "old", "a")
    sid = _new(project, "new", "b")
    s = open_session(project, continue_=True, model="m2", provider="openai")
    assert s.session_id == sid and s.resumed_from == sid
    assert [m.text for m in s.history] == ["new", "b"]
    assert [r["type"] for r in s.replay] == ["message", "message"]
    assert s.writer is not None
    text_turn(s.writer, "more", "c")
    s.close()
    msgs = load(layout.sessions_dir(project), sid).messages()
    assert [m.text for m in msgs] == ["new", "b", "more", "c"]
    resumed = [r for r in iter_replay(layout.sessions_dir(project), sid) if r["type"] == "resumed"]
    assert resumed[0]["data"]["model"] == "m2" and resumed[0]["data"]["provider"] == "openai"


def test_resume_by_name_prefix_and_unknown(project: Path) -> None:
    sid = _new(project, "hello", "hi", name="feature-x")
    assert open_session(project, resume="feature-x", no_persistence=True).history[0].text == "hello"
    assert open_session(project, resume=sid[:8], no_persistence=True).resumed_from == sid
    with pytest.raises(SessionNotFoundError):
        open_session(project, resume="nope")
    with pytest.raises(SessionNotFoundError):
        open_session(project / "elsewhere", continue_=True)


def test_resume_repairs_interrupted_tool_call_and_persists_the_fix(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    s.writer.message(Message.user("run it"))
    s.writer.message(Message("assistant", (ToolUseBlock("t1", "Bash", {"command": "sleep 100"}),)))
    s.close()  # the run died here
    r = open_session(project, resume=s.session_id)
    assert r.history[-1] == Message("user", (ToolResultBlock("t1", INTERRUPTED, True),))
    assert any("interrupted" in n for n in r.notices)
    r.close()
    again = open_session(project, resume=s.session_id, no_persistence=True)
    assert again.history == r.history and not any("interrupted" in n for n in again.notices)


def test_fork_session_on_resume_writes_a_new_file_pointing_at_the_old(project: Path) -> None:
    sid = _new(project, "base", "ok")
    f = open_session(project, resume=sid, fork_session=True)
    assert f.session_id != sid and f.resumed_from == sid
    assert f.writer is not None
    text_turn(f.writer, "fork only", "yes")
    f.close()
    d = layout.sessions_dir(project)
    head = json.loads(layout.session_file(d, f.session_id).read_text().splitlines()[0])
    assert head["parent_session"] == sid and head["fork_record"] == load(d, sid).leaf_id
    assert len(layout.session_file(d, f.session_id).read_text().splitlines()) == 3  # header + 2, nothing copied
    assert [m.text for m in load(d, f.session_id).messages()] == ["base", "ok", "fork only", "yes"]
    assert [m.text for m in load(d, sid).messages()] == ["base", "ok"]


def test_session_id_and_no_persistence(project: Path, home: Path) -> None:
    sid = "12345678-1234-4234-8234-123456789abc"
    s = open_session(project, session_id=sid)
    s.close()
    assert s.session_id == sid
    with pytest.raises(UsageError):
        open_session(project, session_id=sid)
    with pytest.raises(UsageError):
        open_session(project, session_id="not-a-uuid")
    before = sorted(p.name for p in home.rglob("*"))
    n = open_session(project, no_persistence=True)
    assert isinstance(n.sink, NullSink)
    n.sink.message(Message("user", (TextBlock("x"),)))
    assert sorted(p.name for p in home.rglob("*")) == before


def test_unknown_here_but_known_in_another_project_names_it(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    sid = _new(other, "elsewhere", "yes")
    with pytest.raises(SessionNotFoundError) as err:
        open_session(project, resume=sid)
    assert str(other) in err.value.one_line()
