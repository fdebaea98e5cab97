from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

from agentcli.commands.sessions import main
from agentcli.llm.messages import Message
from agentcli.session import layout
from agentcli.session.reader import load
from agentcli.session.store import fork, open_session
from tests.session.helpers import text_turn


def _cli(*argv: str) -> tuple[int, str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        status = main(list(argv))
    return status, buf.getvalue()


def test_fork_at_assistant_message_mid_session_both_branches_keep_their_own_history(project: Path) -> None:
    s = open_session(project, model="m1")
    assert s.writer is not None
    assistant_ids = [text_turn(s.writer, f"q{i}", f"a{i}")[1] for i in range(20)]
    s.close()
    d = layout.sessions_dir(project)
    at = assistant_ids[9]
    fid = fork(d, s.session_id, at[:10], name="alt")
    prefix = [t for i in range(10) for t in (f"q{i}", f"a{i}")]
    assert [m.text for m in load(d, fid).messages()] == prefix

    child = open_session(project, resume=fid)
    assert [m.text for m in child.history] == prefix
    assert child.writer is not None
    text_turn(child.writer, "fork q", "fork a")
    child.close()
    main_branch = open_session(project, resume=s.session_id)
    assert main_branch.writer is not None
    text_turn(main_branch.writer, "main q", "main a")
    main_branch.close()

    full = [t for i in range(20) for t in (f"q{i}", f"a{i}")]
    assert [m.text for m in load(d, fid).messages()] == [*prefix, "fork q", "fork a"]
    assert [m.text for m in load(d, s.session_id).messages()] == [*full, "main q", "main a"]
    # Nothing copied: the fork file holds its header, the resume marker and its own turn.
    assert len(layout.session_file(d, fid).read_text().splitlines()) == 1 + 1 + 2

    status, out = _cli("-C", str(project), "tree")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith(s.session_id[:8]) and "q0" in lines[0]
    assert s.session_id[:8] in lines[1] and fid[:8] in lines[1] and "alt" in lines[1]
    status, out = _cli("-C", str(project), "tree", "--json")
    tree = json.loads(out)
    assert tree[0]["id"] == s.session_id and tree[0]["forks"][0]["id"] == fid


def test_fork_of_a_fork_and_cli_fork(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    u0, _ = text_turn(s.writer, "one", "uno")
    text_turn(s.writer, "two", "dos")
    s.close()
    status, out = _cli("-C", str(project), "fork", s.session_id, "--at", u0)
    assert status == 0
    f1 = out.strip()
    d = layout.sessions_dir(project)
    assert [m.text for m in load(d, f1).messages()] == ["one"]
    w = open_session(project, resume=f1)
    assert w.writer is not None
    w.writer.message(Message.user("also"))
    last = w.writer.message(Message.user("more"))
    w.close()
    f2 = fork(d, f1, last)
    assert [m.text for m in load(d, f2).messages()] == ["one", "also", "more"]
    assert [m.text for m in open_session(project, resume=f2, no_persistence=True).history] == ["onealsomore"]


def test_listings_count_a_forks_turns_and_say_turn_once(project: Path) -> None:
    """Issue 28: a fork was listed with "0 turns" (its turns live in its parent's file), a one-prompt session
    as "1 turns", and long model names were cut at 24 characters."""
    model = "Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf"
    s = open_session(project, model=model)
    assert s.writer is not None
    ids = [text_turn(s.writer, f"q{i}", f"a{i}")[1] for i in range(3)]
    s.close()
    d = layout.sessions_dir(project)
    fid = fork(d, s.session_id, ids[1], name="alt")
    one = open_session(project, model="m1")
    assert one.writer is not None
    text_turn(one.writer, "only", "answer")
    one.close()
    assert _cli("-C", str(project), "list", "--json")[0] == 0
    out = _cli("-C", str(project), "list", "--json")[1]
    turns = {r["id"]: r["turns"] for r in json.loads(out)}
    assert (turns[s.session_id], turns[fid], turns[one.session_id]) == (3, 2, 1)
    out = _cli("-C", str(project), "tree")[1]
    assert f"{one.session_id[:8]}    1 turn " in out and "1 turns" not in out and "  2 turns" in out
    assert model in _cli("-C", str(project), "list")[1]
