"""Issue 4 acceptance, end to end: the real `agentcli -p` as a subprocess against the fake LLM server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentcli.session import layout
from agentcli.session.index import list_sessions
from agentcli.session.reader import load, read_file
from tests.cli.helpers import ANTHROPIC, OPENAI, agentcli, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

KEY = "sk-ant-api03-PLANTED" + "k" * 40
RUN = ["--permission-mode", "bypassPermissions", "--output-format", "json"]


def _only_session(project: Path) -> str:
    rows = list_sessions(layout.sessions_dir(project))
    assert len(rows) == 1
    return rows[0].id


def test_resume_with_another_provider_keeps_history_and_tool_pairs(project: Path, fake_llm: FakeLLM) -> None:
    call = ToolCall("Bash", {"command": "echo 41"})
    fake_llm.push(Reply(thinking="let me think", text="Looking.", tool_calls=[call]), Reply(text="It printed 41."))
    first = agentcli(["-p", "what does echo 41 print?", "--model", ANTHROPIC, *RUN], project,
                     provider_env(fake_llm, ANTHROPIC))
    assert first.status == 0, first.stderr
    sid = first.json()["session_id"]
    fake_llm.push(Reply(text="Still 41."))
    second = agentcli(["-p", "and now?", "--resume", sid, "--model", OPENAI, *RUN], project,
                      provider_env(fake_llm, OPENAI))
    assert second.status == 0, second.stderr
    assert second.json()["session_id"] == sid
    sent = fake_llm.requests[-1].body["messages"]
    assert any(m["role"] == "tool" and "41" in m["content"] for m in sent)
    assert sent[-1] == {"role": "user", "content": "and now?"} or "and now?" in json.dumps(sent[-1])
    assert fake_llm.violations == []
    texts = [m.text for m in load(layout.sessions_dir(project), sid).messages() if m.text]
    assert texts == ["what does echo 41 print?", "Looking.", "It printed 41.", "and now?", "Still 41."]


def test_second_process_on_a_session_in_use_gets_locked_error(project: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="one"), Reply(text="forked"))
    env = provider_env(fake_llm, ANTHROPIC)
    assert agentcli(["-p", "hi", "--model", ANTHROPIC, *RUN], project, env).status == 0
    sid = _only_session(project)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from agentcli.session.store import open_session;"
         "s = open_session(Path(sys.argv[1]), resume=sys.argv[2]); print('ready', flush=True); sys.stdin.read()",
         str(project), sid], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        locked = agentcli(["-p", "again", "-r", sid, "--model", ANTHROPIC, *RUN], project, env)
        assert locked.status == 1
        assert "session_locked" in locked.stderr + locked.stdout and "--fork-session" in locked.stderr + locked.stdout
        forked = agentcli(["-p", "again", "-r", sid, "--fork-session", "--model", ANTHROPIC, *RUN], project, env)
        assert forked.status == 0, forked.stderr
        assert forked.json()["session_id"] != sid
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()
    assert not read_file(layout.session_file(layout.sessions_dir(project), sid)).problems


def test_planted_key_never_reaches_agentcli_home(project: Path, home: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "env; echo key=$ANTHROPIC_API_KEY"})]),
                  Reply(text="done"))
    env = {**provider_env(fake_llm, ANTHROPIC), "ANTHROPIC_API_KEY": KEY}
    run = agentcli(["-p", "print the env", "--model", ANTHROPIC, *RUN], project, env)
    assert run.status == 0, run.stderr
    assert KEY not in json.dumps(fake_llm.requests[-1].body)  # not even the model saw it
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files)
    for p in files:
        assert KEY.encode() not in p.read_bytes(), p


def test_fork_at_an_assistant_message_of_a_20_turn_run(project: Path, fake_llm: FakeLLM) -> None:
    env = provider_env(fake_llm, ANTHROPIC)
    steps = [Reply(text=f"step {i}", tool_calls=[ToolCall("Bash", {"command": f"echo {i}"})]) for i in range(19)]
    fake_llm.push(*steps, Reply(text="all done"))
    assert agentcli(["-p", "twenty steps", "--model", ANTHROPIC, "--max-turns", "30", *RUN], project, env).status == 0
    d = layout.sessions_dir(project)
    sid = _only_session(project)
    assistant = [r for r in load(d, sid).chain if r.get("message", {}).get("role") == "assistant"]
    assert len(assistant) == 20
    status = subprocess.run([sys.executable, "-m", "agentcli", "sessions", "fork", sid, "--at", assistant[9]["id"]],
                            cwd=project, capture_output=True, text=True, check=False)
    assert status.returncode == 0, status.stderr
    fid = status.stdout.strip()
    fake_llm.push(Reply(text="fork answer"), Reply(text="main answer"))
    assert agentcli(["-p", "fork question", "-r", fid, "--model", ANTHROPIC, *RUN], project, env).status == 0
    fork_sent = fake_llm.requests[-1].body["messages"]
    assert agentcli(["-p", "main question", "-r", sid, "--model", ANTHROPIC, *RUN], project, env).status == 0
    main_sent = fake_llm.requests[-1].body["messages"]
    assert fake_llm.violations == []
    # The fork saw the prefix up to step 9's call (answered as interrupted) and its own question only.
    assert "step 9" in json.dumps(fork_sent) and "step 10" not in json.dumps(fork_sent)
    assert "fork question" in json.dumps(fork_sent[-1]) and "main question" not in json.dumps(fork_sent)
    assert "all done" in json.dumps(main_sent) and "fork question" not in json.dumps(main_sent)
    fork_texts = [m.text for m in load(d, fid).messages() if m.text]
    assert fork_texts[-2:] == ["fork question", "fork answer"] and "all done" not in fork_texts
    tree = subprocess.run([sys.executable, "-m", "agentcli", "sessions", "tree"], cwd=project, capture_output=True,
                          text=True, check=True).stdout
    assert sid[:8] in tree.splitlines()[0] and fid[:8] in tree.splitlines()[1]


def test_resume_of_a_damaged_session_warns_and_continues_what_is_intact(project: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="first answer"), Reply(text="second answer"))
    env = provider_env(fake_llm, ANTHROPIC)
    first = agentcli(["-p", "first question", "--model", ANTHROPIC, *RUN], project, env)
    assert first.status == 0, first.stderr
    sid = first.json()["session_id"]
    path = layout.session_file(layout.sessions_dir(project), sid)
    with path.open("ab") as f:  # garbage of every kind, then a torn line
        f.write(b'{"type":"message","id":["x"],"parent_id":null}\n\x00\xff garbage\n' + b"[" * 50_000 + b"\n"
                b'{"type":"message","id":"zz","parent_id":{"a":1},"message":{}}\n{"type":"mess')
    second = agentcli(["-p", "second question", "--resume", sid, "--model", ANTHROPIC,
                       "--permission-mode", "bypassPermissions"], project, env)  # text: warnings on stderr
    assert second.status == 0, second.stderr
    assert second.stdout.strip() == "second answer"
    assert "Traceback" not in second.stderr and "corrupt" in second.stderr and "torn" in second.stderr
    sent = json.dumps(fake_llm.requests[-1].body["messages"])
    assert "first question" in sent and "first answer" in sent and "second question" in sent
