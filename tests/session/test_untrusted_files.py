"""Session ids and session files as an attacker would write them: ids that are paths, records of the wrong
type, lines no parser expects, checkpoint trees that are git options. Each loads what is intact, reports the
rest, and never reaches outside the project's sessions directory."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from agentcli.commands.sessions import main
from agentcli.errors import SessionNotFoundError
from agentcli.llm.messages import Message, TextBlock
from agentcli.session import layout
from agentcli.session.index import list_sessions
from agentcli.session.reader import load
from agentcli.session.store import open_session
from tests.cli.helpers import agentcli
from tests.session.helpers import bash_turn, text_turn

SID = "11111111-2222-3333-4444-555555555555"
HEADER = {"type": "session", "id": SID, "parent_id": None, "ts": "2026-01-01T00:00:00.000Z", "model": "m1"}


def _cli(project: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["-C", str(project), *argv])
    return status, out.getvalue(), err.getvalue()


def _msg(rid: str, parent: str | None, role: str, text: str) -> dict[str, object]:
    return {"type": "message", "id": rid, "parent_id": parent, "ts": "t",
            "message": {"role": role, "content": [{"type": "text", "text": text}]}}


def _dumps(rec: dict[str, object]) -> bytes:
    return json.dumps(rec, separators=(",", ":")).encode()  # as agentcli writes them


def _write(project: Path, *lines: bytes | dict[str, object], header: dict[str, object] | None = None) -> Path:
    d = layout.sessions_dir(project.resolve())
    d.mkdir(parents=True, exist_ok=True)
    body = [_dumps(header or {**HEADER, "project_root": str(project.resolve())})]
    body += [x if isinstance(x, bytes) else _dumps(x) for x in lines]
    path = layout.session_file(d, SID)
    path.write_bytes(b"\n".join(body) + b"\n")
    return path


@pytest.mark.parametrize("ref", ["../../../outside/evil", "{root}/outside/evil", "..", ".hidden", "a/b", "x\0y"])
def test_a_session_reference_that_is_a_path_never_leaves_the_sessions_directory(
        project: Path, tmp_path: Path, ref: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    evil = outside / "evil.jsonl"
    evil.write_text(json.dumps({**HEADER, "id": "evil"}) + "\n")
    _write(project, _msg("u1", None, "user", "hello"))  # a real session beside it
    ref = ref.format(root=tmp_path)
    for argv in (["show", ref], ["rename", ref, "pwned"], ["rm", ref], ["fork", ref], ["export", ref],
                 ["rewind", ref, "--to", "u1", "--yes"]):
        status, out, err = _cli(project, *argv)
        assert status == 2 and "[session_not_found]" in err, (argv, out, err)
    with pytest.raises(SessionNotFoundError):
        open_session(project, resume=ref)
    assert sorted(p.name for p in outside.iterdir()) == ["evil.jsonl"]  # not written, no lock beside it
    assert evil.read_text() == json.dumps({**HEADER, "id": "evil"}) + "\n"
    assert _cli(project, "show", SID)[0] == 0


def test_a_header_naming_a_parent_outside_the_directory_is_a_missing_parent(project: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.jsonl").write_text(json.dumps({**HEADER, "id": "x"}) + "\n"
                                           + json.dumps(_msg("s1", None, "user", "SECRET HISTORY")) + "\n")
    header = {**HEADER, "parent_session": "../../../secret", "fork_record": "s1"}
    _write(project, _msg("u1", "s1", "user", "mine"), header=header)
    loaded = load(layout.sessions_dir(project.resolve()), SID)
    assert [m.text for m in loaded.messages()] == ["mine"]
    assert any("missing" in p for p in loaded.problems)


WRONG_TYPED: list[bytes | dict[str, object]] = [
    {"type": "message", "id": ["list"], "parent_id": "u1", "message": {"role": "user", "content": "x"}},
    {"type": "message", "id": "b", "parent_id": {"a": 1}, "message": {"role": "user", "content": "x"}},
    {"type": "message", "id": "c", "parent_id": "u1", "message": [1]},
    {"type": "message", "id": "d", "parent_id": "u1", "message": {"role": "user", "content": [1, "x"]}},
    {"type": "message", "id": "e", "parent_id": "u1",
     "message": {"role": "user", "content": [{"type": "text", "text": 5}]}},
    {"type": "message", "id": "f", "parent_id": "u1", "message": {"role": "user", "content": {"type": "text"}}},
    {"type": "checkpoint", "id": "g", "parent_id": "u1", "data": ["tree"]},
    {"type": "rename", "id": "h", "parent_id": "u1", "data": {"name": {"not": "a name"}}},
    {"type": 7, "id": "i", "parent_id": "u1"},
    b'{"type":"message","id":"j","parent_id":"u1","message":{"role":"user","content":"\\u0000 NUL \x00 raw"}}',
    b"[" * 100_000 + b"]" * 100_000,  # nested too deep for any JSON parser
    b'"a string, not a record"',
    b"\x00\x00\x00 binary garbage \xff\xfe",
]


def test_wrong_typed_and_garbage_lines_load_what_is_intact_everywhere(project: Path) -> None:
    header = {**HEADER, "project_root": str(project.resolve()), "git_branch": {"a": 1}, "name": 42,
              "fork_record": ["x"], "parent_session": {"id": 1}}
    path = _write(project, _msg("u1", None, "user", "first"), *WRONG_TYPED, _msg("a1", "u1", "assistant", "reply"),
                  header=header)
    with path.open("ab") as f:
        f.write(b'{"type":"message","id":"torn"')  # a crash mid-line
    d = layout.sessions_dir(project.resolve())
    loaded = load(d, SID)
    assert [m.text for m in loaded.messages()] == ["first", "reply"]
    assert any("torn" in p for p in loaded.problems) and any("header field" in p for p in loaded.problems)
    [row] = list_sessions(d)
    assert row.id == SID and row.first_prompt == "first" and row.git_branch is None
    for argv in (["list", "--all"], ["list", "--json"], ["tree"], ["show", SID], ["show", SID, "--json"],
                 ["export", SID], ["export", SID, "json"], ["fork", SID]):
        status, out, err = _cli(project, *argv)
        assert status == 0 and "Traceback" not in err, (argv, err)
    s = open_session(project, resume=SID)
    assert [m.text for m in s.history] == ["first", "reply"]
    assert any("line" in n for n in s.notices)
    s.close()
    before = path.read_bytes()
    status, out, _ = _cli(project, "doctor")
    assert "moved" in out
    bad = Path(f"{path}.bad").read_bytes()
    kept = path.read_bytes()
    # Nothing lost: every line of the old file is in the rewritten one or, byte for byte, in the .bad file.
    for line in before.split(b"\n"):
        assert line in kept or line in bad
    assert [m.text for m in load(d, SID).messages()] == ["first", "reply"]


def test_a_checkpoint_tree_that_is_a_git_option_never_reaches_git(project: Path, tmp_path: Path) -> None:
    (project / "a.txt").write_text("one\n")
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "edit", "echo two > a.txt")
    first = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    pwned = tmp_path / "pwned"
    parent = first
    for i, opt in enumerate((f"--output={pwned}", "-p", "HEAD", "0" * 39 + "-")):
        parent = s.writer.append({"type": "checkpoint", "id": f"forged{i}", "parent_id": parent, "ts": "t",
                                  "data": {"phase": "before_tool", "tree": opt}})
    s.close()
    loaded = load(layout.sessions_dir(project), s.session_id)
    forged = [r["id"] for r in loaded.chain if r["id"].startswith("forged")]
    assert len(forged) == 4
    for rid in forged:
        status, out, err = _cli(project, "rewind", s.session_id, "--to", rid, "--files", "--dry-run")
        assert status == 0 and "no file checkpoint" in out, err
    assert not pwned.exists()
    assert (project / "a.txt").read_text() == "two\n"


def test_a_resumed_session_of_garbage_only_starts_empty_with_a_warning(project: Path) -> None:
    _write(project, *WRONG_TYPED[:3])
    s = open_session(project, resume=SID)
    assert s.history == [] and s.notices
    assert s.writer is not None
    text_turn(s.writer, "again", "fine")
    s.close()
    assert [m.text for m in load(layout.sessions_dir(project.resolve()), SID).messages()] == ["again", "fine"]


def test_a_lone_surrogate_from_a_stream_is_written_and_reads_back_exactly(project: Path) -> None:
    text = json.loads('"half of a pair: \\ud800, and the other half: \\udfff"')  # as a provider's JSON decodes it
    s = open_session(project)
    assert s.writer is not None
    text_turn(s.writer, text, "noted " + text)
    s.close()
    loaded = load(layout.sessions_dir(project), s.session_id)
    assert [m.text for m in loaded.messages()] == [text, "noted " + text] and not loaded.problems
    assert list_sessions(layout.sessions_dir(project))[0].first_prompt == text
    for argv in (["list", "--json"], ["show", s.session_id]):  # a real stdout: one that cannot encode it
        run = agentcli(["sessions", *argv], project)
        assert run.status == 0 and "Traceback" not in run.stderr, (argv, run.stderr)
    exported = json.loads(agentcli(["sessions", "export", s.session_id, "json"], project).stdout)
    assert exported["messages"][0]["content"][0]["text"] == text  # the escape is JSON's own: read back exactly


def test_escape_sequences_from_transcripts_and_repositories_never_reach_the_terminal_raw(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/\x1b]0;owned\x07main\n")  # a repository's own file
    (project / "f.txt").write_text("plain\n")
    s = open_session(project, model="m1", provider="anthropic")
    assert s.writer is not None
    bash_turn(s.writer, project, "hi \x1b[31mred\x1b[0m", "printf 'x\\033[2J\\r\\n' > f.txt")
    s.writer.message(Message("assistant", (TextBlock("\x9b6n clear \x1b[2J"),)))
    s.close()
    first = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    for argv in (["list"], ["show", s.session_id], ["tree"],
                 ["rewind", s.session_id, "--to", first, "--files", "--dry-run"]):
        status, out, err = _cli(project, *argv)
        assert status == 0, err
        assert not any(c in out for c in "\x1b\x07\x9b\r"), (argv, out)
    assert "\\x1b[31mred" in _cli(project, "show", s.session_id)[1]  # shown, inert


def test_a_resumed_session_with_damaged_permission_and_todo_records_is_drawn(project: Path) -> None:
    from agentcli.session.resumable import read_resumable
    from agentcli.ui.resume import edited_calls, stored_todos

    _write(project, _msg("u1", None, "user", "go"),
           {"type": "permission", "id": "p1", "parent_id": "u1", "ts": "t", "data": {"updated_input": {"x": 1}}},
           {"type": "permission", "id": "p2", "parent_id": "p1", "ts": "t",
            "data": {"tool_use_id": ["t"], "updated_input": {"x": 2}}},
           {"type": "permission", "id": "p3", "parent_id": "p2", "ts": "t",
            "data": {"tool_use_id": "toolu_ok", "updated_input": {"x": 3}}},
           {"type": "todos", "id": "t1", "parent_id": "p3", "ts": "t", "data": {"todos": [{"content": 5}, "x"]}})
    stored = read_resumable(layout.sessions_dir(project.resolve()), SID)
    assert edited_calls(stored.chain) == {"toolu_ok": {"x": 3}}
    assert stored_todos(stored.chain) == ()


def test_a_damaged_subagent_transcript_does_not_break_show(project: Path) -> None:
    from agentcli.session.resumable import sidechain_dir

    _write(project, _msg("u1", None, "user", "go"))
    sub = sidechain_dir(layout.sessions_dir(project.resolve()), SID)
    sub.mkdir(parents=True)
    damaged = b"\x00 not a header\n" + _dumps(_msg("x", None, "user", "y"))
    (sub / f"{layout.new_session_id()}.jsonl").write_bytes(damaged)
    (sub / "..jsonl").write_bytes(b"a file named like a traversal\n")
    status, out, err = _cli(project, "show", SID)
    assert status == 0 and "subagent transcript: None" in out, err
    status, out, err = _cli(project, "show", SID, "--sidechain", "toolu_x")
    assert status == 2 and "[session_not_found]" in err
