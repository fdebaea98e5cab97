"""Golden tests: events rendered into a plain 80-column console match the files in golden/.

Set UPDATE_GOLDEN=1 to rewrite the files after a deliberate change (then read the diff).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from rich.console import Console

from agentcli.core.events import (
    AgentEvent,
    ApiRetry,
    AssistantMessage,
    MessageStop,
    Notice,
    PermissionDecision,
    RunFinished,
    RunResult,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from agentcli.ui.render import Renderer

GOLDEN = Path(__file__).parent / "golden"


def render(events: list[AgentEvent], width: int = 80, **kw: bool) -> str:
    console = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    r = Renderer(console, **kw)
    for ev in events:
        r.feed(ev)
    r.flush()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in out.splitlines()) + "\n"


def check(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def deltas(text: str, size: int) -> list[AgentEvent]:
    return [TextDelta(text[i : i + size]) for i in range(0, len(text), size)]


MARKDOWN = (
    "# Plan\n\nFirst **read** the `config`, then:\n\n1. parse it\n2. check it\n\n"
    "| key | value |\n|-----|-------|\n| a | 1 |\n\n> quoted note\n\nDone.\n"
)
CODE = "Here is the fix:\n\n```python\ndef add(a: int, b: int) -> int:\n\n    return a + b\n```\n\nThat is all."


def test_markdown() -> None:
    check("markdown", render([TurnStarted(1), *deltas(MARKDOWN, 5), MessageStop("end_turn")]))


def test_code_block_split_across_deltas() -> None:
    whole = render([TurnStarted(1), TextDelta(CODE), MessageStop("end_turn")])
    for size in (1, 3, 11):
        assert render([TurnStarted(1), *deltas(CODE, size), MessageStop("end_turn")]) == whole
    check("code_block", whole)


def test_blocks_print_as_they_complete() -> None:
    console = Console(file=io.StringIO(), width=80, force_terminal=False)
    r = Renderer(console)
    r.feed(TextDelta("first paragraph\n\n```py\nx = 1\n"))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "first paragraph" in shown and "x = 1" not in shown
    r.feed(TextDelta("```\n"))
    assert "x = 1" in console.file.getvalue()  # type: ignore[attr-defined]


DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n import os\n-DEBUG = True\n+DEBUG = False\n print(os.name)\n"


def test_diff_and_tool_lines() -> None:
    ls = "\n".join(f"file{i}.txt" for i in range(8))
    events: list[AgentEvent] = [
        TurnStarted(1),
        ToolStarted("t1", "Read", {"file_path": "src/app.py"}),
        ToolFinished("t1", "Read", {"file_path": "src/app.py"}, ToolResultBlock("t1", "1\n2\n3\n4\n5"), 12),
        ToolFinished("t2", "Bash", {"command": "ls -1"}, ToolResultBlock("t2", ls), 1530),
        ToolFinished("t3", "Edit", {"file_path": "app.py"}, ToolResultBlock("t3", "edited"), 4, display=DIFF),
        ToolFinished("t4", "Grep", {"pattern": "x" * 120}, ToolResultBlock("t4", ""), 70_500),
    ]
    check("tools", render(events))


def test_errors_and_notices() -> None:
    result = RunResult(
        "error_during_execution",
        True,
        "",
        "s1",
        1,
        10,
        5,
        0.0,
        Usage(),
        error_code="rate_limit",
        error_message="Rate limited by the provider — wait and retry",
    )
    events: list[AgentEvent] = [
        TurnStarted(1),
        ApiRetry(1, 4, 1.5, "overloaded", "server busy", 529),
        PermissionDecision("t1", "Bash", {"command": "rm -rf /"}, "deny", "rule", reason="Bash(rm:*) is denied"),
        ToolFinished("t1", "Bash", {"command": "rm -rf /"}, ToolResultBlock("t1", "denied", True), 0),
        ToolFinished("t2", "Read", {"file_path": "nope"}, ToolResultBlock("t2", "No such file: nope", True), 1),
        Notice("warning", "context is 90% full"),
        Notice("info", "switched to plan mode"),
        RunFinished(result),
    ]
    check("errors", render(events))


def test_thinking_dim_or_hidden() -> None:
    events: list[AgentEvent] = [TurnStarted(1), ThinkingDelta("look at\nthe file"), TextDelta("Answer.")]
    check("thinking", render(events))
    assert "look at" not in render(events, show_thinking=False)


def test_unstreamed_and_cancelled_messages() -> None:
    msg = Message("assistant", (TextBlock("Half an ans"),))
    out = render([TurnStarted(1), AssistantMessage(msg, Usage(), "m", "cancelled", partial=True)])
    assert "Half an ans" in out and "Interrupted" in out
    assert out.count("Interrupted") == 1


def test_narrow_console_wraps_tool_lines() -> None:
    ev = ToolFinished("t", "Bash", {"command": "echo " + "y" * 200}, ToolResultBlock("t", "y" * 200), 3)
    out = render([ev], width=40)
    assert all(len(line) <= 40 for line in out.splitlines())


def test_replay_rebuilds_screen() -> None:
    messages = [
        Message.user("list files"),
        Message("assistant", (TextBlock("Sure."), ToolUseBlock("t1", "Bash", {"command": "ls"}))),
        Message("user", (ToolResultBlock("t1", "a.txt\nb.txt"),)),
        Message("assistant", (TextBlock("Two files."),)),
    ]
    console = Console(file=io.StringIO(), width=80, force_terminal=False)
    Renderer(console).replay(messages)
    out = "\n".join(line.rstrip() for line in console.file.getvalue().splitlines()) + "\n"  # type: ignore[attr-defined]
    check("replay", out)


def test_replay_of_a_compacted_session_says_so_above_its_tail() -> None:
    from agentcli.core.compaction import Carried, summary_message

    messages = [summary_message("## Task\nthe task", Carried("the task", None))]
    messages += [Message.user(f"prompt {i}") if i % 2 == 0 else Message("assistant", (TextBlock(f"Reply {i}."),))
                 for i in range(70)]
    console = Console(file=io.StringIO(), width=100, force_terminal=False)
    Renderer(console).replay(messages)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out.splitlines()[0].startswith("✻ Earlier conversation compacted · 10 messages since then not shown")
    assert "prompt 8" not in out and "prompt 10" in out and "Reply 69." in out


def test_a_resumed_interruption_is_not_replayed_as_a_prompt() -> None:
    """Issue 28: "[Request interrupted by user]" (what the model reads after a stopped turn) came back as a
    prompt the user seemed to have typed."""
    import io

    from rich.console import Console

    from agentcli.core.interrupts import INTERRUPTED
    from agentcli.llm.messages import Message
    from agentcli.ui.render import Renderer

    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=80, force_terminal=False, color_system=None))
    renderer.replay([Message.user("first question"), Message.user(INTERRUPTED), Message.user("second question")])
    shown = out.getvalue()
    assert "first question" in shown and "second question" in shown
    assert INTERRUPTED not in shown and "interrupted" in shown
