"""Resuming a compacted session in the REPL (issue 12): the prompt comes first, the history since the last
compaction is drawn above it, the agent is built behind it — the real `agentcli` in a pseudo-terminal against
the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.core.compaction import Carried, summary_message
from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session import layout
from agentcli.session.lock import SessionLock
from agentcli.session.store import open_session
from tests.fakes import FakeLLM, Reply
from tests.ui.ptyterm import Term, child_env

MODEL = ["--model", "openai/fake-model"]
AFTER = 70  # messages after the last compaction: more than the replay draws (60)
PROMPT = "\x1b[0;1m›"  # the prompt as prompt_toolkit draws it (rich draws the replayed prompts' "›" otherwise)


def _turn(prompt: str, i: int) -> list[Message]:
    read = ToolUseBlock(f"t{i}", "Read", {"file_path": "a.txt"})
    return [Message.user(prompt),
            Message("assistant", (TextBlock(f"Reading file {i}."), read)),
            Message("user", (ToolResultBlock(f"t{i}", "alpha\nbeta\n"),)),
            Message("assistant", (TextBlock(f"Answer {i}."),))]


def turns(fake_llm: FakeLLM) -> list[Any]:
    """The session's own requests: not the one-token probes a local server gets once, after its first reply, to
    see whether its chat template keeps the tools (agentcli.assembly.toolsseen)."""
    return [r for r in fake_llm.requests if r.body.get("stream")]


def compacted_session(project: Path) -> str:
    """Two compactions; before the last one only "pre-boundary" prompts, after it AFTER messages ending with
    the prompt "last prompt" and the reply "Last answer."."""
    s = open_session(project, cwd=project, model="fake-model", provider="openai")
    assert s.writer is not None
    for c in range(2):
        for i in range(8):
            for m in _turn(f"pre-boundary prompt {c}.{i}", i):
                s.writer.message(m)
        history = [summary_message(f"## Task\nthe task (summary {c})\n## Next\nmore", Carried("the task", None))]
        s.writer.record("compaction", {"trigger": "auto", "reason": "threshold", "phases": ["summarise"],
                                       "messages": [m.to_dict() for m in history]})
    after = [m for i in range(AFTER // 4) for m in _turn(f"post-boundary prompt {i}", 100 + i)]
    after += [Message.user("last prompt"), Message("assistant", (TextBlock("Last answer."),))]
    for m in after:
        s.writer.message(m)
    s.close()
    return s.session_id


def spawn(terms: list[Term], project: Path, fake: FakeLLM, *args: str) -> Term:
    t = Term([*MODEL, *args], project, child_env(fake.openai_url))
    terms.append(t)
    return t


def test_resumed_compacted_session_shows_its_tail_and_takes_a_prompt(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    sid = compacted_session(project)
    fake_llm.push(Reply(text="Continuing after the compaction."))
    t = spawn(terms, project, fake_llm, "--resume", sid)
    screen = t.expect(f"Resumed session {sid}")
    assert PROMPT in screen.split("last prompt", 1)[0]  # the prompt was up before the history was drawn
    assert "last prompt" in screen and "Last answer." in screen and "Answer 116." in screen  # the tail
    assert "Earlier conversation compacted" in screen and "messages since then not shown" in screen
    assert "post-boundary prompt 0" not in screen  # beyond the tail the replay draws
    assert "pre-boundary" not in t.out  # nothing from before the last compaction
    t.prompt()
    t.line("what comes next?")
    t.expect("Continuing after the compaction.")
    t.prompt()
    sent = json.dumps(turns(fake_llm)[-1].body["messages"])
    assert "summary 1" in sent and "post-boundary prompt 0" in sent and "what comes next?" in sent
    assert "summary 0" not in sent and "pre-boundary" not in sent
    t.send("\x04")
    assert t.wait_exit() == 0
    assert f"agentcli --resume {sid}" in t.out


def test_typeahead_before_the_resumed_prompt_is_submitted_below_the_history(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    sid = compacted_session(project)
    fake_llm.push(Reply(text="Typed-ahead answer."))
    t = spawn(terms, project, fake_llm, "-c")
    t.send("typed before the prompt\r")  # at once: the process has not drawn anything yet
    t.expect("Typed-ahead answer.")
    t.prompt()
    assert len(turns(fake_llm)) == 1
    last = turns(fake_llm)[0].body["messages"][-1]
    assert last["role"] == "user" and "typed before the prompt" in json.dumps(last)
    assert "typed before the prompt" in t.out.split(f"Resumed session {sid}", 1)[1]  # below the history


def test_a_session_in_use_is_refused_before_the_prompt(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    sid = compacted_session(project)
    lock = SessionLock(layout.lock_file(layout.sessions_dir(project.resolve()), sid), sid).acquire()
    try:
        t = spawn(terms, project, fake_llm, "--resume", sid)
        t.expect("in use by process")
        assert t.wait_exit() == 1
        assert "Resumed session" not in t.out and not fake_llm.requests
    finally:
        lock.release()



def prompt_before_history(screen: str, command: str, history: str) -> bool:
    """After the entered `command` line (its last drawing: the line as accepted), the empty prompt was drawn
    before `history` was written above it."""
    before = screen.split(history, 1)[0]
    return PROMPT in before.rsplit(command, 1)[1]


def test_slash_resume_draws_the_prompt_first_as_the_resume_flag_does(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    """`/resume` (by id, or from the picker) continues a session the way `agentcli --resume` starts one: the
    prompt is back at once, the history is drawn above it, and the agent is built behind it."""
    sid = compacted_session(project)
    fake_llm.push(Reply(text="A fresh answer."), Reply(text="Continuing the resumed one."),
                  Reply(text="Back in the fresh one."))
    t = spawn(terms, project, fake_llm)
    t.prompt()
    t.line("a fresh question")
    t.expect("A fresh answer.")
    t.prompt()
    t.line(f"/resume {sid[:8]}")
    screen = t.expect(f"Resumed session {sid}")
    assert prompt_before_history(screen, f"/resume {sid[:8]}", "last prompt")
    assert "Last answer." in screen and "pre-boundary" not in screen
    t.prompt()
    t.line("what comes next?")
    t.expect("Continuing the resumed one.")
    sent = json.dumps(turns(fake_llm)[-1].body["messages"])
    assert "summary 1" in sent and "what comes next?" in sent and "a fresh question" not in sent
    t.prompt()
    t.line("/resume")  # the picker: the fresh session (the current one is not listed)
    t.expect("of 1)")
    t.send("\r")
    screen = t.expect("Resumed session ")
    assert PROMPT in screen.split("a fresh question", 1)[0]
    t.line("and now?")
    t.expect("Back in the fresh one.")
    sent = json.dumps(turns(fake_llm)[-1].body["messages"])
    assert "a fresh question" in sent and "summary 1" not in sent
