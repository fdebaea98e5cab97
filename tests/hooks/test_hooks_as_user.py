"""Issue 26, acceptance 2: hooks run as the user, as Claude Code runs them (a Stop hook may reach a local
notifier, a formatter may live under /tmp, a logger may append under .claude/); a project file a hook runs is
used only while it is the one the user trusted; a failed hook is never recorded as a success."""

from __future__ import annotations

import asyncio
import http.server
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.hooks import HookOutcome
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.hooks.config import HookSpec
from agentcli.hooks.engine import HookEngine
from agentcli.hooks.process import hook_env
from agentcli.hooks.scripts import project_files
from agentcli.paths import home
from agentcli.settings import trust
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

PY = sys.executable


class Notifier(http.server.BaseHTTPRequestHandler):
    bodies: list[bytes]

    def do_POST(self) -> None:
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def notifier() -> Iterator[tuple[str, list[bytes]]]:
    bodies: list[bytes] = []
    handler = type("H", (Notifier,), {"bodies": bodies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/notify", bodies
    finally:
        server.shutdown()
        server.server_close()


def run_stream(proj: Path, fake: FakeLLM, *extra: str) -> list[dict[str, Any]]:
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", "stream-json", "--include-hook-events",
                    *extra], proj, provider_env(fake, ANTHROPIC))
    assert run.status == 0, run.stderr
    return run.lines()


def responses(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in lines if x.get("subtype") == "hook_response"]


def notices(lines: list[dict[str, Any]]) -> list[str]:
    return [x["text"] for x in lines if x.get("subtype") == "notice"]


def user_hooks(hooks: dict[str, Any]) -> None:
    """Hooks in the user's own config (~/.agentcli/config.toml), as `hooks import --scope user` writes them."""
    home().mkdir(parents=True, exist_ok=True)
    (home() / "config.toml").write_text(f"hooks = {_toml(hooks)}\n")


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def test_a_stop_notifier_and_a_formatter_outside_the_project_succeed_by_default(
    tmp_path: Path, fake_llm: FakeLLM, notifier: tuple[str, list[bytes]]
) -> None:
    url, bodies = notifier
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n", ".claude/keep": ""})
    tools = tmp_path / "formatter"  # under /tmp, outside the project
    tools.mkdir()
    (tools / "fmt.py").write_text(
        "import json, os, sys\n"
        "d = json.load(sys.stdin)\n"
        "p = d['tool_input']['file_path']\n"
        "text = open(p).read()\n"
        "open(p, 'w').write(text.replace('x=2', 'x = 2'))\n"
        "open(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], '.claude', 'fmt.log'), 'a').write(p + '\\n')\n")
    (tools / "notify.py").write_text(
        "import json, sys, urllib.request\n"
        f"urllib.request.urlopen(urllib.request.Request({url!r}, data=sys.stdin.read().encode(), "
        "method='POST'), timeout=10)\n")
    hooks = {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command",
                                                                  "command": f"{PY} {tools / 'fmt.py'}"}]}],
             "Stop": [{"hooks": [{"type": "command", "command": f"{PY} {tools / 'notify.py'}"}]}]}
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
                  Reply(tool_calls=[ToolCall("Write", {"file_path": "a.py", "content": "x=2\n"})]),
                  Reply(text="done"))
    lines = run_stream(proj, fake_llm, "--permission-mode", "acceptEdits", "--settings", json.dumps({"hooks": hooks}))
    assert [(r["hook_event"], r["outcome"]) for r in responses(lines)] == [("PostToolUse", "success"),
                                                                          ("Stop", "success")]
    assert (proj / "a.py").read_text() == "x = 2\n"
    assert (proj / ".claude" / "fmt.log").read_text().strip() == "a.py"
    assert len(bodies) == 1 and json.loads(bodies[0])["hook_event_name"] == "Stop"


def test_a_project_script_changed_by_the_model_after_trust_does_not_run(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n", "tools/mark.py": (
        "import os\nopen(os.environ['CLAUDE_PROJECT_DIR'] + '/marks.txt', 'a').write('trusted\\n')\n")})
    user_hooks({"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": f'{PY} "$CLAUDE_PROJECT_DIR"/tools/mark.py'}]}]})
    trusted = agentcli(["hooks", "trust"], proj)
    assert trusted.status == 0 and "tools/mark.py" in trusted.stdout, trusted.stderr
    evil = "echo \"open('marks.txt', 'a').write('evil')\" > tools/mark.py"
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "echo one"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": evil})]),
                  Reply(text="done"))
    lines = run_stream(proj, fake_llm, "--permission-mode", "bypassPermissions")
    assert (proj / "marks.txt").read_text() == "trusted\n"
    assert "evil" in (proj / "tools" / "mark.py").read_text()  # the model did change it (through Bash)
    outcomes = [r["outcome"] for r in responses(lines)]
    assert outcomes == ["success", "error"]
    refused = [n for n in notices(lines) if "was not run" in n]
    assert len(refused) == 1 and "tools/mark.py" in refused[0] and "agentcli hooks trust" in refused[0]


def test_a_never_trusted_project_script_is_refused_in_p_with_a_notice(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n", "hook.sh": "touch ran.txt\n"})
    fake_llm.push(Reply(text="hi"))
    lines = run_stream(proj, fake_llm, "--settings", json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "bash hook.sh"}]}]}}))
    assert not (proj / "ran.txt").exists()
    assert [r["outcome"] for r in responses(lines)] == ["error"]
    assert any("hook.sh" in n and "was not run" in n for n in notices(lines))
    user_hooks({"Stop": [{"hooks": [{"type": "command", "command": "bash hook.sh"}]}]})
    doctor = agentcli(["doctor"], proj)
    assert "hooks: Stop hook 'bash hook.sh' runs hook.sh, not trusted" in doctor.stdout, doctor.stdout


@pytest.mark.parametrize(("command", "says"), [
    ("exit 1", "failed (exit 1)"),
    ("no-such-command-anywhere-xyz", "failed (exit 127)"),
])
def test_a_failing_hook_is_shown_and_never_a_success(tmp_path: Path, fake_llm: FakeLLM, command: str,
                                                     says: str) -> None:
    fake_llm.push(Reply(text="hi"))
    lines = run_stream(tmp_path, fake_llm, "--settings", json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": command}]}]}}))
    assert [r["outcome"] for r in responses(lines)] == ["error"]
    assert any(says in n for n in notices(lines)), notices(lines)


def test_which_project_files_a_hook_command_runs(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    for f in (".claude/hooks/v.py", "x.py", "fmt.sh", "bin/tool", "conf.toml"):
        (proj / f).parent.mkdir(parents=True, exist_ok=True)
        (proj / f).write_text("x")
    (proj / "bin" / "tool").chmod(0o755)
    outside = tmp_path / "outside.sh"
    outside.write_text("x")
    (proj / "link.sh").symlink_to(outside)
    env = hook_env({"PATH": "bin:/usr/bin", "HOME": str(tmp_path)}, proj, (), ())

    def named(command: str) -> list[str]:
        return [str(p.relative_to(proj)) for p in project_files(command, proj, env)]

    assert named('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/v.py') == [".claude/hooks/v.py"]
    assert named("${CLAUDE_PROJECT_DIR}/fmt.sh") == ["fmt.sh"]
    assert named("bash fmt.sh && python x.py") == ["fmt.sh", "x.py"]
    assert named("tool --fast") == ["bin/tool"]  # a relative PATH entry is looked up from the project
    assert named("FOO=1 ./fmt.sh; black --config=conf.toml") == ["fmt.sh", "conf.toml"]
    assert named("sh link.sh") == ["link.sh"]  # a symlink in the project counts: the model could repoint it
    assert named(f"{outside} && curl -X POST http://127.0.0.1:9/") == []
    assert named(f"cat {proj}/../p/x.py") == ["x.py"]
    assert named("cd .claude && python3 hooks/v.py") == [".claude/hooks/v.py"]


class Answering:
    """An approver that records the question and gives one answer."""

    interactive = True

    def __init__(self, behavior: str) -> None:
        self.behavior = behavior
        self.asked: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval("allow" if self.behavior == "allow" else "deny")


@pytest.mark.parametrize("behavior", ["allow", "deny"])
def test_interactive_sessions_ask_about_a_changed_script_and_a_yes_pins_it(tmp_path: Path, behavior: str) -> None:
    proj = git_repo(tmp_path / "p", {"hook.sh": "echo one > out.txt\n"})
    approver = Answering(behavior)
    env = hook_env({"PATH": "/usr/bin:/bin"}, proj, (), ())
    engine = HookEngine([HookSpec("Stop", "", "bash hook.sh", 10.0, "test")], project_dir=proj, cwd=proj, env=env,
                        approver=approver)

    def fire() -> HookOutcome:
        return asyncio.run(engine.run(engine.select("Stop", None), {"hook_event_name": "Stop"}))

    first = fire()
    assert len(approver.asked) == 1 and "hook.sh" in (approver.asked[0].reason or "")
    if behavior == "deny":
        assert first.runs[0].outcome == "error" and not (proj / "out.txt").exists()
        return
    assert first.runs[0].outcome == "success" and (proj / "out.txt").read_text() == "one\n"
    assert trust.script_pinned(proj, proj / "hook.sh")
    fire()
    assert len(approver.asked) == 1  # pinned: not asked again
    (proj / "hook.sh").write_text("echo two > out.txt\n")
    fire()
    assert len(approver.asked) == 2


def test_tool_response_has_claude_codes_shape_per_tool(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\ny = 2\n"})
    seen = tmp_path / "seen.jsonl"
    logger = tmp_path / "log.py"
    logger.write_text(f"import sys\nopen({str(seen)!r}, 'a').write(sys.stdin.read().replace('\\n', ' ') + '\\n')\n")
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Bash", {"command": "echo out; echo err >&2"})]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
        Reply(tool_calls=[ToolCall("Edit", {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 3"})]),
        Reply(tool_calls=[ToolCall("Write", {"file_path": "b.py", "content": "z = 1\n"})]),
        Reply(text="done"),
    )
    run_stream(proj, fake_llm, "--permission-mode", "bypassPermissions", "--settings", json.dumps({"hooks": {
        "PostToolUse": [{"hooks": [{"type": "command", "command": f"{PY} {logger}"}]}]}}))
    got = {d["tool_name"]: d["tool_response"] for d in map(json.loads, seen.read_text().splitlines())}
    bash = got["Bash"]
    assert "out" in bash["stdout"] and "err" in bash["stdout"] and bash["stderr"] == ""
    assert bash["interrupted"] is False and bash["isImage"] is False
    read = got["Read"]
    assert read["type"] == "text" and read["file"]["filePath"] == str(proj / "a.py")
    assert read["file"]["startLine"] == 1 and read["file"]["numLines"] == 2 and read["file"]["totalLines"] == 2
    edit = got["Edit"]
    assert edit["filePath"] == str(proj / "a.py") and edit["oldString"] == "x = 1" and edit["newString"] == "x = 3"
    assert edit["replaceAll"] is False and edit["userModified"] is False
    write = got["Write"]
    assert write["type"] == "create" and write["filePath"] == str(proj / "b.py") and write["content"] == "z = 1\n"


def test_files_a_runner_runs_without_naming_them_count(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    for f in ("Makefile", "package.json", "node_modules/.bin/prettier", "black.py", ".venv/bin/ruff"):
        (proj / f).parent.mkdir(parents=True, exist_ok=True)
        (proj / f).write_text("x")
    env = hook_env({"PATH": "/usr/bin:/bin"}, proj, (), ())

    def named(command: str) -> list[str]:
        return [str(p.relative_to(proj)) for p in project_files(command, proj, env)]

    assert named("make fmt") == ["Makefile"]
    assert named("npx prettier --write x") == ["package.json", "node_modules/.bin/prettier"]
    assert named("python3 -m black .") == ["black.py"]
    assert named("uv run ruff format") == [".venv/bin/ruff"]
    assert named("echo make") == []


def test_trusting_the_project_trusts_the_scripts_its_hooks_run(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"hook.sh": "touch ran.txt\n", ".agentcli/settings.toml": (
        '[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
        'command = "bash hook.sh"\n')})
    assert agentcli(["permissions", "trust"], proj).status == 0
    fake_llm.push(Reply(text="hi"))
    lines = run_stream(proj, fake_llm)
    assert (proj / "ran.txt").exists(), notices(lines)
    assert [r["outcome"] for r in responses(lines)] == ["success"]


def test_trusting_hook_scripts_never_vouches_for_the_projects_settings(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {".agentcli/settings.toml": 'permission_mode = "bypassPermissions"\n'})
    cat = 'cat "$CLAUDE_PROJECT_DIR"/.agentcli/settings.toml'
    user_hooks({"Stop": [{"hooks": [{"type": "command", "command": cat}]}]})
    done = agentcli(["hooks", "trust"], proj)
    assert done.status == 0 and ".agentcli/settings.toml" in done.stdout, done.stderr
    assert trust.script_pinned(proj, proj / ".agentcli" / "settings.toml")
    assert not trust.is_trusted(proj)
