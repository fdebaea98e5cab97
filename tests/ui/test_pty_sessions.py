"""Pseudo-terminal tests of the REPL's plan review, session picker, /branch and terminal restoring, driving
the real `agentcli` against the fake LLM server."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import pexpect  # type: ignore[import-untyped]

from agentcli.llm.messages import Message, TextBlock
from agentcli.session import layout
from agentcli.session.index import list_sessions
from agentcli.session.reader import load
from agentcli.session.store import open_session
from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import AGENTCLI, CPR_REQUEST, Term, child_env

MODEL = ["--model", "openai/fake-model"]


def start(terms: list[Term], project: Path, fake: FakeLLM, *args: str) -> Term:
    t = Term([*MODEL, *args], project, child_env(fake.openai_url))
    terms.append(t)
    return t


def body(fake: FakeLLM, i: int = -1) -> str:
    return json.dumps(fake.requests[i].body["messages"])


def test_plan_review_keep_planning_then_accept_edits(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    fake_llm.push(
        Reply(text="Reading first.", tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]),
        Reply(text="Here is my plan.", tool_calls=[ToolCall("ExitPlanMode", {"plan": "1. Change alpha"})]),
        Reply(text="Revised.", tool_calls=[ToolCall("ExitPlanMode", {"plan": "1. Change alpha\n2. Add tests"})]),
        Reply(text="Editing.", tool_calls=[
            ToolCall("Edit", {"file_path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"})]),
        Reply(text="All done."),
    )
    t = start(terms, project, fake_llm, "--permission-mode", "plan")
    t.prompt()
    t.line("plan the change")
    t.expect("Approve this plan?")
    t.expect("choice [1-3]")
    t.send("3")  # one key, no Enter
    t.expect("what should change?")
    t.line("also add tests")
    t.expect("Add tests")
    t.expect("choice [1-3]")
    assert "also add tests" in body(fake_llm, 2)  # the feedback reached the model
    t.send("1")
    t.expect("All done.")
    t.prompt()
    assert (project / "a.txt").read_text() == "ALPHA\nbeta\n", t.out[-3000:]
    assert "Allow Edit?" not in t.out  # acceptEdits: the edit ran without asking
    assert "Update(a.txt)" in t.out or "Edit(a.txt)" in t.out


def _stored_session(project: Path, prompt: str, answer: str, name: str | None = None) -> str:
    opened = open_session(project, cwd=project, model="fake-model", provider="openai", name=name)
    opened.sink.message(Message.user(prompt))
    opened.sink.message(Message("assistant", (TextBlock(answer),)))
    opened.close()
    return opened.session_id


def test_resume_picker_filters_and_resumes(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    _stored_session(project, "tell me about lions", "Lions roar.")
    zebra = _stored_session(project, "tell me about zebras\nwith stripes", "Zebras are striped.", name="stripes")
    _stored_session(project, "tell me about eagles", "Eagles fly.")
    fake_llm.push(Reply(text="Still zebras."))
    t = start(terms, project, fake_llm, "--resume")
    listing = t.expect("of 3)")
    for text in ("Resume a session", "stripes", "tell me about lions", "1 turn", "fake-model", "just now"):
        assert text in listing, text
    t.send("zeb")  # the newest session is first; only the zebra one matches (screen updates are diffs)
    t.send("\r")
    t.expect(f"Resumed session {zebra}")
    t.prompt()
    t.line("and their colours?")
    t.expect("Still zebras.")
    assert "Zebras are striped." in body(fake_llm) and "lions" not in body(fake_llm)


def test_branch_forks_into_named_session(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    fake_llm.push(Reply(text="First reply."), Reply(text="Branch reply."))
    t = start(terms, project, fake_llm)
    t.prompt()
    t.line("first question")
    t.expect("First reply.")
    t.prompt()
    t.line("/branch")
    t.expect("Usage: /branch NAME")
    t.prompt()
    t.line("/branch experiment")
    forked = t.expect(r"Forked ([0-9a-f]{8}) → experiment \(([0-9a-f]{8})\)", regex=True)
    t.prompt()
    t.line("in the branch")
    t.expect("Branch reply.")
    t.prompt()
    assert "first question" in body(fake_llm)
    t.line("/branch experiment")
    t.expect("already exists")
    original_prefix, branch_prefix = re.findall(r"Forked ([0-9a-f]{8}) → experiment \(([0-9a-f]{8})\)", forked)[-1]
    directory = layout.sessions_dir(project)
    summaries = {s.id[:8]: s for s in list_sessions(directory)}
    branch = summaries[branch_prefix]
    assert branch.name == "experiment" and branch.parent_session is not None
    assert branch.parent_session.startswith(original_prefix)
    texts = [m.text for m in load(directory, branch.id).messages()]
    assert texts == ["first question", "First reply.", "in the branch", "Branch reply."]
    original = [m.text for m in load(directory, branch.parent_session).messages()]
    assert original == ["first question", "First reply."]


def _child_of(pid: int) -> int:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                return int(entry)
    raise AssertionError(f"no child of {pid}")


def test_sigterm_during_a_turn_restores_the_terminal(project: Path, fake_llm: FakeLLM) -> None:
    words = tuple(f"word{i} " for i in range(20_000))
    fake_llm.push(Reply(pieces=words))
    script = f"{AGENTCLI} {' '.join(MODEL)}; echo AFTER-EXIT $?; stty -a"
    child = pexpect.spawn("sh", ["-c", script], cwd=str(project), env=child_env(fake_llm.openai_url),
                          dimensions=(30, 100), encoding="utf-8", timeout=20)
    out = ""

    def expect(pattern: str) -> None:
        nonlocal out
        while child.expect([pattern, re.escape(CPR_REQUEST)]) == 1:
            out += child.before + child.after
            child.send("\x1b[1;1R")
        out += child.before + child.after

    try:
        expect("›")
        child.send("write a lot\r")
        expect("word5")
        os.kill(_child_of(child.pid), signal.SIGTERM)
        expect("AFTER-EXIT")
        child.expect(pexpect.EOF)
        out += child.before
    finally:
        child.close(force=True)
    stty = out.split("AFTER-EXIT", 1)[1]
    assert stty.startswith(" 143") and "word19999" not in out  # killed by SIGTERM in the middle of the turn
    assert re.search(r"(?<![-\w])icanon\b", stty) and re.search(r"(?<![-\w])echo\b", stty), stty
    assert re.search(r"(?<![-\w])isig\b", stty), stty
    assert "\x1b[?25h" in out.split("word5", 1)[1]  # the cursor is shown again
