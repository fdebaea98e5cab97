"""`--attach` says the warnings the full CLI says (issue: never silent): `-p` text puts each notice on stderr,
a subagent's marked with its name — which the client learns from the Task call, since a stream-json notice names
only its `parent_tool_use_id`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentcli.paths import home
from tests.cli.helpers import git_repo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.server.conftest import ROOT, TIMEOUT, Server


def test_attach_p_says_a_subagents_notice_once_marked_as_its_own(server: Server, fake_llm: FakeLLM,
                                                                  tmp_path: Path) -> None:
    (home() / "config.toml").write_text(  # the user's hook, failing on every Read (the child's)
        '[[hooks.PreToolUse]]\nmatcher = "Read"\nhooks = [{type = "command", command = "echo broken >&2; exit 1"}]\n')
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Task", {"description": "look", "prompt": "look at a.py",
                                                      "subagent_type": "explore"}, id="toolu_sub")]),
                  Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]), Reply(text="child done"),
                  Reply(text="parent done"))
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    run = subprocess.run([sys.executable, "-m", "agentcli", "-p", "go", "--attach", server.url], cwd=proj,
                         env={**clean, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "parent done\n" and len(fake_llm.requests) == 4
    assert run.stderr == "agentcli (subagent explore): PreToolUse:Read hook failed (exit 1): broken\n"
