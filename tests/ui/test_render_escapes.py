"""What the model writes and what its tools print reach the terminal as text, never as controls: the renderer
(a real rich Console that believes it is a terminal) must not pass on an OSC (title, clipboard), an erase-line,
a carriage return or a bidi override from assistant text, thinking, a tool's argument or its output."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from agentcli.core.events import (
    MessageStop,
    TextDelta,
    ThinkingDelta,
    TodoItem,
    TodosUpdated,
    ToolFinished,
    TurnStarted,
)
from agentcli.llm.messages import ToolResultBlock
from agentcli.ui.render import Renderer
from agentcli.visible import hidden_characters, inert, visible

OSC = "\x1b]0;PWNED\x07"
CLIP = "\x1b]52;c;cHduZWQ=\x07"


def test_hostile_text_and_output_are_shown_escaped() -> None:
    out = io.StringIO()
    r = Renderer(Console(file=out, width=120, force_terminal=True), live=False)
    for ev in (TurnStarted(1), ThinkingDelta(f"think {OSC}"), TextDelta(f"hello {OSC}\x1b[2K\r\u202egnp.exe\n\n"),
               ToolFinished("t1", "Bash", {"command": f"ls {CLIP}"}, ToolResultBlock("t1", f"out {CLIP}\x9b2J"), 5),
               ToolFinished("t2", f"Evil{OSC}", {"x": "y"}, ToolResultBlock("t2", "unknown tool", True), 1),
               TodosUpdated((TodoItem(f"step {CLIP}", "pending", f"doing {CLIP}"),)),
               MessageStop("end_turn")):
        r.feed(ev)
    r.flush()
    shown = out.getvalue()
    for raw in ("\x1b]0;PWNED", "\x1b]52", "\x1b[2K", "\u202e", "\x9b", "\r"):
        assert raw not in shown, repr(raw)
    assert "\\x1b]0;PWNED\\x07" in shown and "\\x1b]52;c;" in shown and "\\u202egnp.exe" in shown


def test_visible_and_inert() -> None:
    assert visible("a\tb\nc\rd\x1b[0m\x00\x7f\u200b\u2066") == "a\tb\nc\\rd\\x1b[0m\\0\\x7f\\u200b\\u2066"
    assert inert("👩\u200d💻 \u202e") == "👩\u200d💻 \\u202e"  # a joiner builds the emoji; the override acts
    assert hidden_characters("curl https://exаmple.com\u200b") == ["U+0430", "U+200B"]
    assert visible("plain ascii, é ü") == "plain ascii, é ü"


def test_a_long_tool_input_is_never_cut_silently(tmp_path: Path) -> None:
    """The end of a long MCP call (`…; DROP TABLE users`) stays on screen, and the cut is said."""
    from agentcli.core.permissions import ApprovalRequest
    from agentcli.ui.approval import TerminalApprover

    query = "SELECT 1;" + " " * 5000 + "DROP TABLE users;"
    shown = TerminalApprover(tmp_path).describe(ApprovalRequest("c1", "mcp__db__run", {"sql": query}, False))
    assert "DROP TABLE users;" in shown and "characters not shown" in shown


def test_a_plan_to_approve_is_shown_escaped(tmp_path: Path) -> None:
    """ExitPlanMode's plan, rendered as markdown (the REPL) or said as text: no control reaches the terminal."""
    from agentcli.ui.render import markdown

    out = io.StringIO()
    Console(file=out, width=100, force_terminal=True).print(markdown(f"# Plan\n\n1. read {OSC}\n2. \u202eyalp"))
    assert "\x1b]0;PWNED" not in out.getvalue() and "\u202e" not in out.getvalue()
    assert "\\x1b]0;PWNED" in out.getvalue()


def test_the_approval_shows_an_edit_as_the_result_names_it_and_other_input_readably(tmp_path: Path) -> None:
    """Issue 28: the Edit prompt's diff header was `--- a//abs/path` (the result said `a/calc.py`); a Read
    outside the project was asked about as raw JSON."""
    from agentcli.core.permissions import ApprovalRequest
    from agentcli.ui.approval import TerminalApprover

    (tmp_path / "calc.py").write_text("x = 1\n")
    edit = {"file_path": str(tmp_path / "calc.py"), "old_string": "x = 1", "new_string": "x = 2"}
    shown = TerminalApprover(tmp_path).describe(ApprovalRequest("c1", "Edit", edit, False))
    assert "--- a/calc.py" in shown and "+++ b/calc.py" in shown and "a//" not in shown
    read = {"file_path": "/etc/hostname", "offset": 10, "limit": 5}
    shown = TerminalApprover(tmp_path).describe(ApprovalRequest("c2", "Read", read, False))
    assert "  file_path: /etc/hostname\n  offset: 10\n  limit: 5" in shown and "{" not in shown
