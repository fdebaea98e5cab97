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
from tests.ui.pty import Term, child_env

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
    fake_llm.push(Reply(pieces=tuple(f"word{i} " for i in range(100_000))), Reply(text="Fresh answer."))
    t = start(term_factory, project, fake_llm)
    t.line("write a lot")
    t.expect("word5")
    sent = time.monotonic()
    t.send("\x1b")
    t.expect("Interrupted")
    elapsed = time.monotonic() - sent
    t.prompt()
    print(f"esc-to-stop {elapsed * 1000:.0f} ms")
    assert elapsed < 0.2, f"Esc took {elapsed * 1000:.0f} ms"
    t.line("again")
    t.expect("Fresh answer.")
    last = bodies_text(fake_llm)
    assert "word0" in last and "again" in last  # the partial answer stayed in the transcript


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
    time.sleep(0.3)
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
