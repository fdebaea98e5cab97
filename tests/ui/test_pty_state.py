"""Issue 25, in a pseudo-terminal: the mode an approved plan switched to is the session's, so a new agent
(/clear) keeps it, and the status line shows it — not the mode chosen before the plan."""

from __future__ import annotations

from pathlib import Path

from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term
from tests.ui.test_pty_sessions import start


def test_clear_after_an_approved_plan_keeps_its_mode(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    fake_llm.push(
        Reply(text="Here is my plan.", tool_calls=[ToolCall("ExitPlanMode", {"plan": "1. Change alpha"})]),
        Reply(text="Approved, starting."),
    )
    t = start(terms, project, fake_llm, "--permission-mode", "plan")
    t.prompt()
    t.line("plan the change")
    t.expect("choice [1-3]")
    t.send("1")  # yes, and accept edits
    t.expect("Approved, starting.")
    t.prompt()
    t.expect("accept edits")  # the status line under the prompt
    t.line("/clear")
    t.prompt()
    t.line("/mode")
    t.expect("Permission mode: acceptEdits")
