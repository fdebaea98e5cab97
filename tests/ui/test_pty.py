"""Acceptance tests of the interactive REPL: the real `agentcli` process in a pseudo-terminal against the
fake LLM server (OpenAI-compatible wire format)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term, child_env

MODEL = ["--model", "openai/fake-model"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nbeta\n")
    (root / "src" / "app.py").write_text("print('the app body')\n")
    (root / "secret.log").write_text("ignored\n")
    (root / ".gitignore").write_text("*.log\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def term_factory(project: Path, fake_llm: FakeLLM) -> Iterator[list[Term]]:
    terms: list[Term] = []
    yield terms
    for t in terms:
        t.close()


def start(terms: list[Term], project: Path, fake: FakeLLM, *args: str, **env: str) -> Term:
    t = Term([*MODEL, *args], project, child_env(fake.openai_url, **env))
    terms.append(t)
    t.prompt()
    return t


def bodies_text(fake: FakeLLM, i: int = -1) -> str:
    return json.dumps(fake.requests[i].body["messages"])


def test_prompt_streams_text_and_tool_line(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(
        Reply(text="Let me look.", tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]),
        Reply(text="The file says **alpha** then beta.", chunk_size=3),
    )
    t = start(term_factory, project, fake_llm)
    t.line("what is in a.txt?")
    t.expect("Let me look.")
    t.expect("Read(a.txt)")
    t.expect("alpha")
    t.expect("then beta.")
    t.prompt()
    assert "✓" in t.out
    assert "a.txt" in bodies_text(fake_llm) and "beta" in bodies_text(fake_llm)


def test_escape_stops_long_stream_and_next_prompt_works(
    project: Path, fake_llm: FakeLLM, term_factory: list[Term]
) -> None:
    words = tuple(f"word{i}" + ("\n\n" if i % 40 == 39 else "\n" if i % 8 == 7 else " ") for i in range(100_000))
    fake_llm.push(Reply(pieces=words), Reply(text="Fresh answer."))
    t = start(term_factory, project, fake_llm)
    t.line("write a lot")
    t.expect("word5")
    sent = time.monotonic()
    t.send("\x1b")
    t.expect("Interrupted")
    elapsed = time.monotonic() - sent
    t.prompt()
    # A figure, not a gate: on a loaded shared machine wall time says little (bench/bench_repl.py measures it).
    print(f"esc-to-stop {elapsed * 1000:.0f} ms")
    t.line("again")
    t.expect("Fresh answer.")
    last = bodies_text(fake_llm)
    assert "word0" in last and "again" in last  # the partial answer stayed in the transcript
    # Esc stopped the stream itself: the kept partial answer ends long before the reply's last word.
    assert "word99999" not in last and "word99999" not in t.out


def test_model_mode_shift_tab_and_cost(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(Reply(text="one"), Reply(text="two"))
    t = start(term_factory, project, fake_llm)
    t.line("hi")
    t.expect("one")
    t.prompt()
    t.line("/model openai/other-model")
    t.expect("Model set to other-model")
    t.prompt()
    t.line("hi again")
    t.expect("two")
    t.prompt()
    assert fake_llm.requests[-1].body["model"] == "other-model"
    t.line("/mode plan")
    t.expect("Permission mode: plan")
    t.prompt()
    t.send("\x1b[Z")
    t.expect("default mode")
    t.send("\x1b[Z")
    t.expect("accept edits")
    t.line("/mode")
    t.expect("Permission mode: acceptEdits")
    t.prompt()
    t.line("/cost")
    t.expect("Cost: $")
    t.expect("Tokens:")


def test_ctrl_d_prints_resume_and_it_resumes(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(Reply(text="Remembered answer."), Reply(text="Second session reply."))
    t = start(term_factory, project, fake_llm)
    t.line("remember the word pelican")
    t.expect("Remembered answer.")
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0
    found = re.search(r"agentcli --resume ([0-9a-f-]{36})", t.out)
    assert found, t.out[-500:]
    r = start(term_factory, project, fake_llm, "--resume", found.group(1))
    r.expect(f"Resumed session {found.group(1)}")
    r.prompt()
    assert "remember the word pelican" in r.out and "Remembered answer." in r.out
    r.line("what was the word?")
    r.expect("Second session reply.")
    assert "pelican" in bodies_text(fake_llm)


def test_at_file_completion_lists_only_unignored(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(Reply(text="Seen it."))
    t = start(term_factory, project, fake_llm)
    t.send("explain @s")
    shown = t.expect("src/app.py")
    t.send("rc/app.py")
    t.expect("app.py")  # the typed text is echoed before Enter is sent
    t.send("\r")
    t.expect("Seen it.")
    assert "secret.log" not in shown
    assert "the app body" in bodies_text(fake_llm)


def test_bang_command_output_reaches_model(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(Reply(text="I see the listing."))
    t = start(term_factory, project, fake_llm)
    t.line("!ls")
    t.expect("a.txt")
    t.prompt()
    t.line("what files are there?")
    t.expect("I see the listing.")
    body = bodies_text(fake_llm)
    assert "$ ls" in body and "a.txt" in body and "src" in body


SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def colour_codes(text: str) -> list[str]:
    found = []
    for m in SGR.finditer(text):
        for p in m.group(1).replace(":", ";").split(";"):
            if p.isdigit() and (30 <= int(p) <= 49 or 90 <= int(p) <= 107):
                found.append(m.group(0))
    return found


def test_no_color_emits_no_colour(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(
        Reply(text="Reading.", tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]),
        Reply(text="# Title\n\nSome `code`:\n\n```python\ndef f():\n    return 1\n```\n\n- item\n"),
    )
    t = start(term_factory, project, fake_llm, NO_COLOR="1")
    t.line("show me")
    t.expect("return 1")
    t.prompt()
    t.line("/help")
    t.expect("/exit")
    t.prompt()
    assert colour_codes(t.out) == []
    coloured = start(term_factory, project, fake_llm)
    coloured.line("/mode plan")
    coloured.expect("Permission mode: plan")
    coloured.expect("plan mode")
    assert colour_codes(coloured.out)  # the check itself can see colour


def test_approval_prompt_inline_then_tool_runs(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(
        Reply(text="Running it.", tool_calls=[ToolCall("Bash", {"command": "touch made.txt && echo approved-run"})]),
        Reply(text="It printed."),
    )
    t = start(term_factory, project, fake_llm)
    t.line("run echo")
    t.expect("Allow Bash?")
    t.expect("choice [1-")
    t.send("1")  # one key, no Enter
    t.expect("approved-run")
    t.expect("It printed.")
    t.prompt()
    assert "approved-run" in bodies_text(fake_llm) and (project / "made.txt").exists()


def test_session_commands(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    (project / "AGENTS.md").write_text("Always answer in haiku.\n")
    fake_llm.push(
        Reply(text="First reply."),
        Reply(text="After clear."),
        Reply(text="In the fork."),
        Reply(text="Back in the first."),
    )
    t = start(term_factory, project, fake_llm)
    t.line("/memory")
    t.expect("AGENTS.md")
    t.prompt()
    t.line("first question")
    t.expect("First reply.")
    t.prompt()
    assert "Always answer in haiku." in json.dumps(fake_llm.requests[-1].body)
    t.line("/context")
    t.expect("messages (2)")
    t.prompt()
    t.line("/tools")
    t.expect("Read")
    t.prompt()
    t.line("/clear")
    t.expect("Started a new session.")
    t.prompt()
    t.line("fresh start")
    t.expect("After clear.")
    t.prompt()
    assert "first question" not in bodies_text(fake_llm)
    t.line("/sessions")
    t.expect("first question")
    t.prompt()
    t.line("/fork")
    t.expect("Forked")
    t.prompt()
    t.line("in the fork")
    t.expect("In the fork.")
    t.prompt()
    assert "fresh start" in bodies_text(fake_llm)
    t.line("/sessions")
    listing = t.expect(r"([0-9a-f]{8})  first question", regex=True)
    t.prompt()
    first = re.findall(r"([0-9a-f]{8})  first question", listing)[-1]
    t.line(f"/resume {first}")
    t.expect(f"Resumed session {first}")
    t.prompt()
    t.line("back again")
    t.expect("Back in the first.")
    body = bodies_text(fake_llm)
    assert "first question" in body and "fresh start" not in body


def test_rewind_restores_conversation_and_files(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    fake_llm.push(
        Reply(text="One."),
        Reply(text="Reading.", tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]),
        Reply(text="Writing.", tool_calls=[ToolCall("Write", {"file_path": "a.txt", "content": "changed\n"})]),
        Reply(text="Two."),
        Reply(text="Three."),
    )
    t = start(term_factory, project, fake_llm, "--permission-mode", "acceptEdits")
    t.line("first")
    t.expect("One.")
    t.prompt()
    t.line("second: change the file")
    t.expect("Two.")
    t.prompt()
    assert (project / "a.txt").read_text() == "changed\n"
    (project / "a.txt").write_text("changed by hand\n")  # outside the agent, after its last turn
    t.line("/rewind")
    t.expect("2  second: change the file")
    t.prompt()
    t.line("/rewind 2")
    shown = t.expect("[y/N]")
    for text in ("revert a.txt", "warning: changed outside the agent", "-changed by hand", "+alpha", "+beta"):
        assert text in shown, text
    assert shown.index("revert a.txt") < shown.index("+alpha")
    t.line("n")
    t.expect("Rewind cancelled")
    t.prompt()
    assert (project / "a.txt").read_text() == "changed by hand\n"
    t.line("/rewind 2 both")
    t.expect("[y/N]")
    t.line("y")
    t.expect("1 file restored")
    t.prompt()
    assert (project / "a.txt").read_text() == "alpha\nbeta\n"
    t.line("")  # the rewound prompt is back in the input
    t.expect("Three.")
    body = bodies_text(fake_llm)
    assert "One." in body and "Two." not in body and body.count("second: change the file") == 1


def test_initial_prompt_multiline_paste_and_double_ctrl_c(
    project: Path, fake_llm: FakeLLM, term_factory: list[Term]
) -> None:
    fake_llm.push(Reply(text="Started."), Reply(text="Got lines."), Reply(text="Got paste."))
    t = Term([*MODEL, "hello from argv"], project, child_env(fake_llm.openai_url))
    term_factory.append(t)
    t.expect("Started.")
    t.prompt()
    assert "hello from argv" in bodies_text(fake_llm)
    t.send("line one\\")
    t.send("\r")
    t.send("line two")
    t.send("\x1b\r")
    t.send("line three\r")
    t.expect("Got lines.")
    t.prompt()
    assert "line one\\nline two\\nline three" in bodies_text(fake_llm)
    pasted = "".join(f"pasted row {i}\n" for i in range(30))
    t.send("look: \x1b[200~" + pasted + "\x1b[201~")
    t.expect("[Pasted text #1 +31 lines]")
    t.send("\r")
    t.expect("Got paste.")
    t.prompt()
    assert "pasted row 29" in bodies_text(fake_llm)
    t.send("\x03")
    t.expect("Press Ctrl-C again to exit")
    t.send("\x03")
    status = t.wait_exit()
    assert status == 0, t.out[-2500:]
    assert "agentcli --resume" in t.out
