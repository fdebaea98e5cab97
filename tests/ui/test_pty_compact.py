"""Issue 12 acceptance 5 and the REPL side of compaction, todos and memory: the real `agentcli` in a
pseudo-terminal against the fake server."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compaction.helpers import is_summary_request, set_window, summariser
from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term
from tests.ui.test_pty import bodies_text, start


@pytest.fixture
def term_factory(project: Path, fake_llm: FakeLLM) -> Iterator[list[Term]]:
    terms: list[Term] = []
    yield terms
    for t in terms:
        t.close()

LONG = "The parser reads the header first, then each record, and checks the checksum at the end. " * 70


def test_compact_with_focus_in_a_real_terminal(project: Path, fake_llm: FakeLLM, term_factory: list[Term]) -> None:
    set_window(16_000)
    fake_llm.responder = summariser
    todos = [{"content": "Read the parser", "status": "completed", "activeForm": "Reading the parser"},
             {"content": "Fix the checksum", "status": "in_progress", "activeForm": "Fixing the checksum"}]
    fake_llm.push(
        Reply(text="Planning.", tool_calls=[ToolCall("TodoWrite", {"todos": todos})]),
        Reply(text="Let me read it.", tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]),
        Reply(text="First answer about a.txt."),
        Reply(text=LONG),
        Reply(text="After compaction I still know the task."),
    )
    t = start(term_factory, project, fake_llm, "--preset", "coding")
    t.line("explain a.txt and the parser")
    t.expect("Fixing the checksum")  # the todo list, shown when TodoWrite runs
    t.expect("First answer about a.txt.")
    t.prompt()
    t.line("tell me more about the parser")
    t.expect("checks the checksum at the end.")
    t.prompt()
    t.line("/context")
    report = t.expect("compacts at")
    assert "tool results" in report and "memory files" in report and "of 16,000 tokens" in report
    t.prompt()
    t.line("/compact focus on the parser")
    screen = t.expect(r"Compacted \(summarise\): [\d,]+ → [\d,]+ tokens", regex=True)
    assert "Compacting the conversation (/compact)" in screen
    t.prompt()
    summaries = [r for r in fake_llm.requests if is_summary_request(r.body)]
    assert len(summaries) == 1 and "focus on the parser" in json.dumps(summaries[0].body)
    t.line("continue")
    t.expect("After compaction I still know the task.")
    last = bodies_text(fake_llm)
    assert "explain a.txt and the parser" in last and "Fix the checksum" in last
    assert "First answer about a.txt." not in last


def test_memory_edit_opens_the_editor_and_reloads(project: Path, fake_llm: FakeLLM,
                                                  term_factory: list[Term]) -> None:
    (project / "AGENTS.md").write_text("Old rule.\n")
    editor = project.parent / "editor.py"
    editor.write_text(f"#!{sys.executable}\nimport sys\nopen(sys.argv[1], 'a').write('New rule EDITED-7c.\\n')\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    fake_llm.push(Reply(text="noted"))
    t = start(term_factory, project, fake_llm, EDITOR=str(editor), VISUAL="")
    t.line("/memory")
    t.expect("1. ")
    t.prompt()
    t.line("/memory edit")
    t.expect("The memory files apply from the next message.")
    t.prompt()
    assert "EDITED-7c" in (project / "AGENTS.md").read_text()
    t.line("hello")
    t.expect("noted")
    assert "EDITED-7c" in json.dumps(fake_llm.requests[-1].body)
    assert os.environ.get("EDITOR") != str(editor)  # only the child's editor was changed
