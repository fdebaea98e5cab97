"""A `-p` run imports the code of the built-in tools it calls and of no other (issue 25, speed): the model's
request, the policy and the printers need only the tools' specs (agentcli/tools/specs.py), and the tool runner's
checks of a call are imported at the first call.

The module list is `python -v`'s (tests.cli.helpers.run_and_modules), which sees modules imported through
`importlib.import_module` too (as the registry imports a tool's implementation)."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.tools.names import BUILTIN_TOOLS
from tests.cli.helpers import ANTHROPIC, git_repo, provider_env, run_and_modules
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

IMPLEMENTATIONS = {target.partition(":")[0] for target in BUILTIN_TOOLS.values()}
# What the tool runner needs only once a tool is called: the schema check, the read-before-edit check, the
# PostToolUse hook's `tool_response`.
CALL_ONLY = {"agentcli.proc.validate", "agentcli.tools.files", "agentcli.tools.hookresponse"}


def _loaded(args: list[str], cwd: Path, env: dict[str, str], out: Path) -> tuple[str, set[str]]:
    """The stdout of a real `-p` run and the modules it imported."""
    run, modules = run_and_modules(args, cwd, env)
    return run.stdout, modules


def test_a_run_that_calls_no_tool_imports_no_tool_implementation(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="done"))
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    out, modules = _loaded(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC),
                           tmp_path / "modules.json")
    assert out.strip() == "done"
    assert "agentcli.tools.registry" in modules and "agentcli.assembly.tasks" in modules
    assert sorted((IMPLEMENTATIONS | CALL_ONLY) & modules) == []
    body = fake_llm.requests[0].body
    offered = {t["name"]: t for t in body["tools"]}
    assert {"Read", "Bash", "Task", "TaskOutput"} <= set(offered)
    assert offered["Read"]["description"].startswith("Read a text file from the local filesystem.")
    assert "Available subagent_type values:\n- general-purpose: " in offered["Task"]["description"]


def test_a_run_that_calls_read_and_bash_imports_those_two(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Read", {"file_path": "README.md"})]),
        Reply(tool_calls=[ToolCall("Bash", {"command": "echo from-bash"})]),
        Reply(text="done"),
    )
    proj = git_repo(tmp_path / "proj", {"README.md": "readme-text\n"})
    out, modules = _loaded(["-p", "go", "--model", ANTHROPIC, "--allowedTools", "Bash(echo from-bash)"], proj,
                           provider_env(fake_llm, ANTHROPIC), tmp_path / "modules.json")
    assert out.strip() == "done"
    assert IMPLEMENTATIONS & modules == {"agentcli.tools.read", "agentcli.tools.bash"}
    assert modules >= CALL_ONLY
    results = [b for r in fake_llm.requests[1:] for m in r.body["messages"] for b in m["content"]
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    texts = json.dumps(results)
    assert "readme-text" in texts and "from-bash" in texts
