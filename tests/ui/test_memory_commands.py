from __future__ import annotations

from pathlib import Path

from agentcli.assembly.memory import load_memory
from agentcli.settings.custom_commands import load_commands


def test_memory_from_home_root_and_cwd(tmp_path: Path, _home: Path) -> None:
    root = tmp_path / "repo"
    sub = root / "pkg" / "mod"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    (_home / "AGENTS.md").write_text("home rules")
    (root / "CLAUDE.md").write_text("claude rules")
    (root / "pkg" / "GEMINI.md").write_text("gemini rules")
    (root / "pkg" / "AGENTS.md").write_text("pkg rules")
    (sub / "AGENTS.md").write_text("")
    mem = load_memory(sub, root)
    assert mem.files == (_home / "AGENTS.md", root / "CLAUDE.md", root / "pkg" / "AGENTS.md")
    assert mem.text.index("home rules") < mem.text.index("claude rules") < mem.text.index("pkg rules")
    assert "gemini" not in mem.text


def test_no_memory(tmp_path: Path) -> None:
    mem = load_memory(tmp_path, tmp_path)
    assert mem.text == "" and mem.files == ()


def test_custom_commands(tmp_path: Path, _home: Path) -> None:
    (_home / "commands").mkdir()
    (_home / "commands" / "review.md").write_text("Review user-wide $ARGUMENTS")
    (_home / "commands" / "hi.md").write_text("Say hi")
    proj = tmp_path / ".agentcli" / "commands" / "git"
    proj.mkdir(parents=True)
    (tmp_path / ".agentcli" / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS, first $1 then $2.\n"
    )
    (proj / "log.md").write_text("# Show the log\nSummarise git log")
    cmds = load_commands(tmp_path)
    assert set(cmds) == {"review", "hi", "git:log"}
    review = cmds["review"]
    assert review.scope == "project" and review.description == "Review a file"
    assert review.argument_hint == "<file>"
    assert review.expand("a.py 'b c.py'") == "Review a.py 'b c.py', first a.py then b c.py."
    assert cmds["hi"].expand("") == "Say hi"
    assert cmds["hi"].expand("loudly") == "Say hi\n\nARGUMENTS: loudly"
    assert cmds["git:log"].description == "Show the log"
