"""TodoWrite: Claude Code's argument shape, shown in stream-json, kept in the session and restored on resume."""

from __future__ import annotations

from pathlib import Path

from agentcli.assembly.runtime import restore_todos
from agentcli.core.events import TodoItem
from agentcli.core.state import SessionState
from agentcli.proc.validate import validate_args
from agentcli.session.store import open_session
from agentcli.tools.todo import TodoWriteTool
from tests.cli.helpers import ANTHROPIC, agentcli, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

TODOS = [{"content": "Write the test", "status": "completed", "activeForm": "Writing the test"},
         {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"}]


def test_schema_is_claude_codes() -> None:
    schema = TodoWriteTool.input_schema
    assert validate_args(schema, {"todos": TODOS}) == []
    assert validate_args(schema, {"todos": [{"content": "x", "status": "done", "activeForm": "x"}]})
    assert validate_args(schema, {"todos": [{"content": "x", "status": "pending"}]})
    assert validate_args(schema, {"todos": [{"content": "", "status": "pending", "activeForm": "x"}]})


def test_todos_stream_and_survive_resume(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    with FakeLLM([Reply(text="Planning.", tool_calls=[ToolCall("TodoWrite", {"todos": TODOS})]),
                  Reply(text="done")]) as fake:
        run = agentcli(["-p", "do it", "--model", ANTHROPIC, "--preset", "coding", "--output-format",
                        "stream-json"], tmp_path, provider_env(fake, ANTHROPIC))
    assert run.status == 0, run.stderr
    lines = run.lines()
    assert [ln["todos"] for ln in lines if ln.get("subtype") == "todos"] == [TODOS]
    assert "TodoWrite" in lines[0]["tools"]
    opened = open_session(tmp_path, continue_=True, no_persistence=True, checkpoints=False)
    session = SessionState()
    restore_todos(opened, session)
    assert session.todos == (TodoItem("Write the test", "completed", "Writing the test"),
                                    TodoItem("Fix the bug", "in_progress", "Fixing the bug"))
