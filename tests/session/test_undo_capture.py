"""The undo for destructive commands: before `rm -rf build/ node_modules/.cache` or `git clean -fdx`, the
untracked and ignored files they reach are kept in the checkpoint, so `agentcli sessions rewind --files` (what
`/rewind` runs) brings them back, content and mode; what is over the budget is named in a notice."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.commands.sessions import main
from agentcli.session import layout
from agentcli.session.destructive import reach
from agentcli.session.reader import load
from agentcli.session.store import open_session
from tests.session.conftest import git_init, tree_bytes
from tests.session.helpers import bash_turn


def _build_outputs(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (root / ".gitignore").write_text("build/\nnode_modules/\n*.o\n")
    (root / "build" / "obj").mkdir(parents=True)
    (root / "build" / "obj" / "main.o").write_bytes(bytes(range(256)) * 40)
    (root / "build" / "app").write_bytes(b"\x7fELF fake binary\n")
    (root / "build" / "app").chmod(0o755)
    (root / "node_modules" / ".cache" / "babel").mkdir(parents=True)
    (root / "node_modules" / ".cache" / "babel" / "x.json").write_text('{"cached": true}\n')
    (root / "node_modules" / "left.js").write_text("module.exports = 1\n")
    (root / "notes.txt").write_text("my untracked notes\n")


@pytest.mark.parametrize("command", ["rm -rf build/ node_modules/.cache", "git clean -fdx"])
def test_rewind_brings_back_what_a_destructive_command_deleted(project: Path, command: str) -> None:
    _build_outputs(project)
    git_init(project)
    before = tree_bytes(project)
    s = open_session(project)
    assert s.writer is not None
    bash_turn(s.writer, project, "clean up", command)
    s.close()
    assert not (project / "build").exists()
    first_prompt = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    assert main(["-C", str(project), "rewind", s.session_id, "--to", first_prompt, "--files", "--yes"]) == 0
    assert tree_bytes(project) == before


def test_what_is_over_the_budget_is_named(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _build_outputs(project)
    git_init(project)
    monkeypatch.setenv("AGENTCLI_CAPTURE_MB", "0")
    s = open_session(project)
    assert s.writer is not None and s.writer.shadow is not None
    s.writer.shadow.capture_budget = 2000  # bytes: main.o (10 KiB) cannot be kept, the small files can
    bash_turn(s.writer, project, "clean up", "rm -rf build")
    problems = s.writer.take_problems()
    s.close()
    assert any("too large to keep" in p and "build/obj/main.o" in p for p in problems), problems
    first_prompt = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    assert main(["-C", str(project), "rewind", s.session_id, "--to", first_prompt, "--files", "--yes"]) == 0
    assert (project / "build" / "app").read_bytes() == b"\x7fELF fake binary\n"
    assert not (project / "build" / "obj" / "main.o").exists()


@pytest.mark.parametrize(("command", "expected"), [
    ("rm -rf build/ node_modules/.cache", ["build", "node_modules/.cache"]),
    ("git clean -fdx", ["."]), ("git reset --hard HEAD~1", ["."]), ("git checkout -- .", ["."]),
    ("git stash drop", ["."]), ("find . -name '*.o' -delete", ["."]), ("find out -delete", ["out"]),
    ("echo x > notes.txt", ["notes.txt"]), ("cd src && rm -f a.o", ["src/a.o"]),
    ("bash -c 'rm -r dist'", ["dist"]), ("ls | xargs rm", ["."]), ("rm -rf $OUT", ["."]), ("make clean", ["."]),
    ("echo x >> log.txt", []), ("ls -la; pytest -q", []), ("echo hi 2>/dev/null", []), ("git status", []),
    ("rm -rf /elsewhere/x", []),
])
def test_what_a_command_can_reach(command: str, expected: list[str]) -> None:
    assert reach(command, "/p", "/p") == expected


def test_a_write_over_an_ignored_file_is_undone(project: Path) -> None:
    import asyncio

    from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

    _build_outputs(project)
    git_init(project)
    target = project / "build" / "app"
    s = open_session(project)
    w = s.writer
    assert w is not None
    w.message(Message.user("overwrite it"))
    call = ToolUseBlock("toolu_w1", "Write", {"file_path": str(target), "content": "new\n"})
    w.message(Message("assistant", (call,)), model="m1")
    asyncio.run(w.checkpoint(call.id, "Write"))
    target.write_text("new\n")
    w.message(Message("user", (ToolResultBlock(call.id, "ok", False),)))
    w.end_turn()
    w.message(Message("assistant", (TextBlock("done"),)), model="m1")
    w.end_turn()
    asyncio.run(w.settle())
    s.close()
    first_prompt = load(layout.sessions_dir(project), s.session_id).chain[0]["id"]
    assert main(["-C", str(project), "rewind", s.session_id, "--to", first_prompt, "--files", "--yes"]) == 0
    assert target.read_bytes() == b"\x7fELF fake binary\n"
