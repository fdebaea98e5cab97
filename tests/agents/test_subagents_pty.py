"""Issue 15 acceptance 7: the REPL in a real pseudo-terminal shows a subagent's progress, and its approval
prompt is labelled with the subagent's name."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term, child_env


@pytest.fixture
def term(tmp_path: Path, fake_llm: FakeLLM) -> Iterator[Term]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    t = Term(["--model", "openai/fake-model"], root, child_env(fake_llm.openai_url))
    yield t
    t.close()


def test_child_progress_and_labelled_approval(term: Term, fake_llm: FakeLLM) -> None:
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "count lines", "prompt": "count the lines of a.txt",
                                            "subagent_type": "general-purpose"})]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})], when="count the lines of a.txt"),
        Reply(tool_calls=[ToolCall("Bash", {"command": "touch counted.txt"})], when="alpha"),
        Reply(text="one line", when="denied"),
        Reply(text="The file has one line."),
    )
    term.prompt()
    term.line("how long is a.txt?")
    # The child's progress is drawn before its question (the question waits for the parent's stream to be taken)
    term.expect("[general-purpose] Read(a.txt)")
    term.expect("[subagent general-purpose] Allow Bash?")
    assert "Allow Bash?" not in term.out.split("[general-purpose] Read(a.txt)", 1)[0]
    term.send("3")  # one key, no Enter
    term.expect("tell the agent why")
    term.line("not now")
    term.expect("The file has one line.")
    child_answers = [json.dumps(r.body["messages"]) for r in fake_llm.requests if "not now" in json.dumps(r.body)]
    assert child_answers
