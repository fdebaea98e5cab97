"""The approval prompt against a command or an edit built to hide what it does, in a real pseudo-terminal: the
terminal must receive none of the model's escape sequences, carriage returns or bidi overrides as such — each is
shown as an escape (`\\x1b`, `\\r`, `\\u202e`) — and the prompt names the unusual characters."""

from __future__ import annotations

from pathlib import Path

from tests.permissions.test_approval_pty import drive

# An OSC title (a marker to look for), an erase-line and a carriage return that would leave only `ls` on the
# line, a right-to-left override that would reverse the tail, and a zero-width space inside `rm`.
HIDING = "rm -rf ~/x \x1b]0;PWNED-TITLE\x07\x1b[2K\rls -la # \u202eexe.sh r\u200bm"


def test_a_command_that_hides_itself_is_shown_escaped(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    result, shown = drive(root, {"loop": HIDING}, [("choice", "3"), ("why", "\r")])
    assert result["is_error"], result
    assert "\x1b]0;PWNED" not in shown and "\u202e" not in shown and "\u200b" not in shown
    assert "\\x1b]0;PWNED-TITLE\\x07\\x1b[2K\\rls -la" in shown
    assert "\\u202eexe.sh" in shown and "r\\u200bm" in shown
    assert "U+202E" in shown and "U+200B" in shown


def test_an_edit_that_writes_escapes_is_shown_escaped(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    content = "x = 1\x1b]52;c;cHduZWQ=\x07\r# harmless\n"
    request = {"tool": "Write", "input": {"file_path": "src/x.py", "content": content}, "reason": None}
    result, shown = drive(root, request, [("choice", "3"), ("why", "\r")])
    assert result["behavior"] == "deny"
    assert "\x1b]52" not in shown
    assert "\\x1b]52;c;cHduZWQ=\\x07" in shown
