from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from agentcli.commands.sessions import main
from agentcli.llm.messages import Message, ToolUseBlock
from agentcli.session import layout
from agentcli.session.index import INDEX_NAME, list_sessions
from agentcli.session.reader import read_file
from agentcli.session.store import fork, open_session
from tests.session.helpers import text_turn


def _cli(project: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["-C", str(project), *argv])
    return status, out.getvalue(), err.getvalue()


def _session(project: Path, prompt: str, **kw: object) -> str:
    s = open_session(project, model="m1", provider="anthropic", **kw)  # type: ignore[arg-type]
    assert s.writer is not None
    text_turn(s.writer, prompt, f"answer to {prompt}")
    s.close()
    return s.session_id


def test_list_show_rename_export(project: Path, tmp_path: Path) -> None:
    a = _session(project, "first task")
    b = _session(project, "second task\nwith details")
    status, out, _ = _cli(project, "list")
    assert status == 0 and "first task" in out and "second task" in out and "with details" not in out
    assert _cli(project, "rename", a[:8], "my-name")[0] == 0
    rows = json.loads(_cli(project, "list", "--json")[1])
    assert {r["id"]: r["title"] for r in rows} == {a: "my-name", b: "second task"}
    assert rows[0]["turns"] == 1 and rows[0]["model"] == "m1"
    status, out, _ = _cli(project, "show", "my-name")
    assert status == 0 and "first task" in out and "rename" in out
    recs = [json.loads(line) for line in _cli(project, "show", a, "--json")[1].splitlines()]
    assert recs[0]["type"] == "session" and recs[1]["message"]["role"] == "user"
    md = _cli(project, "export", a)[1]
    assert md.startswith("# ") and "## User" in md and "first task" in md and "## Assistant" in md
    target = tmp_path / "x.json"
    assert _cli(project, "export", a, "json", "-o", str(target))[0] == 0
    body = json.loads(target.read_text())
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"]


def test_errors_and_rm(project: Path) -> None:
    a = _session(project, "base")
    status, _, err = _cli(project, "show", "zzzz")
    assert status == 2 and "[session_not_found]" in err
    f = fork(layout.sessions_dir(project), a)
    status, _, err = _cli(project, "rm", a)
    assert status == 2 and "--with-forks" in err
    status, out, _ = _cli(project, "rm", a, "--with-forks")
    assert status == 0 and a in out and f in out
    assert list_sessions(layout.sessions_dir(project)) == []


def test_doctor_repairs_torn_lines_and_interrupted_calls(project: Path) -> None:
    good = _session(project, "fine")
    s = open_session(project)
    assert s.writer is not None
    s.writer.message(Message.user("do it"))
    s.writer.message(Message("assistant", (ToolUseBlock("t1", "Bash", {"command": "x"}),)))
    s.close()
    with s.writer.path.open("ab") as fh:
        fh.write(b'{"type":"message","id":"torn')
    status, out, _ = _cli(project, "doctor", "--dry-run")
    assert status == 1 and "PROBLEM" in out
    status, out, _ = _cli(project, "doctor")
    assert status == 0, out
    assert f"ok       {good}" in out and f"fixed    {s.session_id}" in out
    parsed = read_file(s.writer.path)
    assert not parsed.problems
    assert parsed.records[-2]["message"]["content"][0]["is_error"] is True
    assert (s.writer.path.parent / f"{s.writer.path.name}.bad").read_bytes().startswith(b'{"type":"message"')
    assert _cli(project, "doctor")[1].count("ok ") == 2


def test_index_is_incremental_and_rebuildable(project: Path) -> None:
    d = layout.sessions_dir(project)
    a = _session(project, "one")
    assert list_sessions(d)[0].turns == 1
    s = open_session(project, resume=a)
    assert s.writer is not None
    text_turn(s.writer, "two", "dos")
    s.close()
    rows = list_sessions(d)
    assert rows[0].turns == 2 and rows[0].first_prompt == "one"
    (d / INDEX_NAME).write_text("not json")
    assert list_sessions(d)[0].turns == 2


def test_rm_removes_the_subagent_transcripts_and_no_other_session_s(project: Path) -> None:
    from agentcli.session.resumable import sidechains
    from agentcli.session.store import open_sidechain

    d = layout.sessions_dir(project)
    a, b = _session(project, "parent"), _session(project, "other")
    for sid in (a, b):
        side = open_sidechain(project, sid, "toolu_1", "explore", cwd=project, model="m1", provider="anthropic")
        side.message(Message.user("subagent work"))
        side.close()
    assert len(sidechains(d, a)) == 1
    assert _cli(project, "rm", a)[0] == 0
    assert sidechains(d, a) == [] and not (d / a).exists()
    assert len(sidechains(d, b)) == 1


def test_files_written_beside_sessions_are_private(project: Path) -> None:
    d = layout.sessions_dir(project)
    sid = _session(project, "secret plans")
    with layout.session_file(d, sid).open("ab") as fh:
        fh.write(b"not json\n")
    os.chmod(d, 0o755)  # a directory made by someone else, or an older version: the files still protect themselves
    assert _cli(project, "doctor")[0] == 0
    for path in (d / INDEX_NAME, Path(f"{layout.session_file(d, sid)}.bad"), layout.session_file(d, sid)):
        assert path.stat().st_mode & 0o077 == 0, path
