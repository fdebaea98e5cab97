"""Hooks seen from outside: real hook scripts run by the real `agentcli -p` against the fake LLM server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, imported_modules, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

PY = sys.executable


def settings_with(hooks: dict[str, Any]) -> str:
    return json.dumps({"hooks": hooks})


def script(path: Path, body: str) -> str:
    """A Python hook script; returns the command that runs it. Scripts live outside the project (hooks run as
    the user; a script inside the project runs only once trusted, see test_hooks_as_user.py)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"import json, os, sys\n{body}\n")
    return f"{PY} {path}"


def run_p(proj: Path, fake: FakeLLM, prompt: str, *extra: str, fmt: str = "json") -> Any:
    return agentcli(["-p", prompt, "--model", ANTHROPIC, "--output-format", fmt, *extra], proj,
                    provider_env(fake, ANTHROPIC))


def sent(fake: FakeLLM, index: int) -> str:
    return json.dumps(fake.requests[index].body["messages"])


def test_pre_tool_use_exit_2_blocks_rm_and_tells_the_model(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"keep.txt": "precious\n"})
    cmd = script(tmp_path / "hooks" / "guard.py", """
data = json.load(sys.stdin)
if data["tool_name"] == "Bash" and "rm " in data["tool_input"]["command"]:
    print("rm is not allowed here: move files to trash/ instead", file=sys.stderr)
    sys.exit(2)
""")
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "rm keep.txt"})]), Reply(text="ok"))
    run = run_p(proj, fake_llm, "clean up", "--permission-mode", "bypassPermissions",
                "--settings", settings_with({"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": cmd}]}]}))
    assert (proj / "keep.txt").exists(), run.stderr
    assert "move files to trash/ instead" in sent(fake_llm, 1)
    assert run.json()["permission_denials"][0]["tool_name"] == "Bash"


def test_post_tool_use_gets_the_documented_json_and_its_formatter_change_is_read_back(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    seen = tmp_path / "hooks" / "seen.json"
    cmd = script(tmp_path / "hooks" / "fmt.py", f"""
data = json.load(sys.stdin)
open({str(seen)!r}, "w").write(json.dumps({{"input": data, "env": os.environ.get("CLAUDE_PROJECT_DIR")}}))
path = data["tool_input"]["file_path"]
text = open(path).read()
open(path, "w").write(text.replace("x=2", "x = 2"))
""")
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
        Reply(tool_calls=[ToolCall("Write", {"file_path": "a.py", "content": "x=2\n"})]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
        Reply(text="done"),
    )
    run = run_p(proj, fake_llm, "edit", "--permission-mode", "acceptEdits",
                "--settings", settings_with({"PostToolUse": [{"matcher": "Edit|Write", "hooks": [
                    {"type": "command", "command": cmd}]}]}))
    assert run.status == 0, run.stderr
    got = json.loads(seen.read_text())
    data = got["input"]
    assert got["env"] == str(proj)
    assert data["hook_event_name"] == "PostToolUse"
    assert data["tool_name"] == "Write"
    assert data["tool_input"] == {"file_path": "a.py", "content": "x=2\n"}
    assert data["tool_response"]["success"] is True and data["tool_response"]["filePath"] == str(proj / "a.py")
    assert data["tool_use_id"] and data["session_id"] == run.json()["session_id"]
    assert data["cwd"] == str(proj) and data["permission_mode"] == "acceptEdits"
    assert data["transcript_path"].endswith(".jsonl") and Path(data["transcript_path"]).exists()
    assert (proj / "a.py").read_text() == "x = 2\n"
    assert "x = 2" in json.dumps(fake_llm.requests[3].body["messages"][-1])


def test_user_prompt_submit_adds_context_or_blocks(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    cmd = script(tmp_path / "hooks" / "ups.py", """
data = json.load(sys.stdin)
if "secret" in data["prompt"]:
    print(json.dumps({"decision": "block", "reason": "prompts may not mention secrets"}))
else:
    print("Team rule: answer in French.")
""")
    hooks = settings_with({"UserPromptSubmit": [{"hooks": [{"type": "command", "command": cmd}]}]})
    fake_llm.push(Reply(text="bonjour"))
    ok = run_p(proj, fake_llm, "say hello", "--settings", hooks)
    assert ok.status == 0, ok.stderr
    assert "Team rule: answer in French." in sent(fake_llm, 0)
    blocked = run_p(proj, fake_llm, "print the secret", "--settings", hooks)
    assert blocked.status == 3
    assert "prompts may not mention secrets" in blocked.json()["result"]
    assert blocked.json()["is_error"] is True and len(fake_llm.requests) == 1


def test_permission_decisions_allow_deny_and_a_bad_rewrite(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})

    made: list[str] = []

    def decision(out: dict[str, Any]) -> str:
        cmd = script(tmp_path / "hooks" / f"d{len(made)}.py", f"print(json.dumps({out!r}))")
        made.append(cmd)
        return settings_with({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": cmd}]}]})

    allow = decision({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch allowed.txt"})]), Reply(text="ok"))
    run = run_p(proj, fake_llm, "go", "--settings", allow)
    assert run.status == 0 and (proj / "allowed.txt").exists(), run.stderr

    deny = decision({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                            "permissionDecisionReason": "never on Fridays"}})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch denied.txt"})]), Reply(text="ok"))
    run = run_p(proj, fake_llm, "go", "--settings", deny, "--permission-mode", "bypassPermissions")
    assert run.status == 3 and not (proj / "denied.txt").exists()
    assert "never on Fridays" in sent(fake_llm, 3)

    bad = decision({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                           "updatedInput": {"command": 42}}})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch rewritten.txt"})]), Reply(text="ok"))
    run = run_p(proj, fake_llm, "go", "--settings", bad)
    assert not (proj / "rewritten.txt").exists()
    assert "rewrote this call's input, but the result is not valid" in sent(fake_llm, 5)


def test_an_allow_hook_does_not_beat_a_deny_rule_and_a_rewrite_is_checked_again(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                  "updatedInput": {"command": "touch ../escaped.txt"}}}
    cmd = script(tmp_path / "hooks" / "rewrite.py", f"print(json.dumps({out!r}))")
    hooks = settings_with({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": cmd}]}]})
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch inside.txt"})]), Reply(text="ok"))
    run = run_p(proj, fake_llm, "go", "--settings", hooks, "--disallowedTools", "Bash(touch ../escaped.txt)")
    assert run.status == 3, run.stderr
    assert not (tmp_path / "escaped.txt").exists() and not (proj / "inside.txt").exists()


def test_a_hanging_hook_is_killed_with_its_children_and_the_run_goes_on(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    pidfile = tmp_path / "child.pid"
    cmd = f"sleep 300 & echo $! > {pidfile}; wait"
    # Outside the sandbox (sandbox_hooks = false), so the pid the hook writes is the host's: agentcli's own
    # process-group kill is what is tested (in the sandbox, its PID namespace would end the child anyway).
    hooks = json.dumps({"sandbox_hooks": False, "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [
        {"type": "command", "command": cmd, "timeout": 1}]}]}})
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]), Reply(text="read it"))
    run = run_p(proj, fake_llm, "read", "--settings", hooks, "--include-hook-events", fmt="stream-json")
    assert run.status == 0, run.stderr
    lines = run.lines()
    responses = [x for x in lines if x.get("subtype") == "hook_response"]
    assert responses and responses[0]["outcome"] == "timeout" and responses[0]["hook_name"] == "PreToolUse:Read"
    assert any(x.get("subtype") == "hook_started" for x in lines)
    assert lines[-1]["result"] == "read it"
    child = int(pidfile.read_text())
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[1][:1] != "Z"


def test_hooks_imported_from_claude_code_settings_behave_the_same(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The shape of Claude Code's documentation examples: a Bash command logger and a PreToolUse validator
    reading `.tool_input.command` from stdin with jq-like Python, with $CLAUDE_PROJECT_DIR in the command."""
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    (proj / ".claude" / "hooks").mkdir(parents=True)
    (proj / ".claude" / "hooks" / "validate.py").write_text(
        "import json, sys\n"
        "cmd = json.load(sys.stdin)['tool_input'].get('command', '')\n"
        "if 'grep ' in cmd:\n"
        "    print('Use rg (ripgrep) instead of grep for better performance', file=sys.stderr)\n"
        "    sys.exit(2)\n"
    )
    log = proj / "bash-command-log.txt"
    # outside .claude/, which agentcli reads natively (once trusted): here only the import is tested
    claude_settings = tmp_path / "claude-settings.json"
    claude_settings.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": f"{PY} -c \"import json,sys; d=json.load(sys.stdin); "
                                           f"open('{log}','a').write(d['tool_input']['command']+'\\\\n')\""},
            {"type": "command", "command": f"{PY} \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/validate.py"}]}]}}))
    imported = agentcli(["hooks", "import", "--from", str(claude_settings)], proj)
    assert imported.status == 0, imported.stderr
    assert "Imported 2 hook command(s)" in imported.stdout
    listed = agentcli(["hooks", "list", "--json"], proj)
    assert [h["event"] for h in json.loads(listed.stdout)] == ["PreToolUse", "PreToolUse"]
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "grep -r a ."})]), Reply(text="ok"),
                  Reply(tool_calls=[ToolCall("Bash", {"command": "echo hi"})]), Reply(text="ok"))
    first = run_p(proj, fake_llm, "search", "--allowedTools", "Bash")
    assert "Use rg (ripgrep) instead of grep" in sent(fake_llm, 1), first.stderr
    second = run_p(proj, fake_llm, "say hi", "--allowedTools", "Bash")
    assert second.status == 0, second.stderr
    assert log.read_text().splitlines() == ["grep -r a .", "echo hi"]
    again = agentcli(["hooks", "import", "--from", str(claude_settings)], proj)
    assert "(0 new group(s))" in again.stdout


def test_project_hooks_run_only_once_the_project_is_trusted(tmp_path: Path, fake_llm: FakeLLM) -> None:
    marker = tmp_path / "proj" / "ran.txt"
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n", ".agentcli/settings.toml": (
        f'[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
        f'command = "touch {marker}"\n')})
    fake_llm.push(Reply(text="one"), Reply(text="two"))
    untrusted = run_p(proj, fake_llm, "hi")
    assert untrusted.status == 0, untrusted.stderr
    assert not marker.exists()
    assert agentcli(["permissions", "trust"], proj).status == 0
    trusted = run_p(proj, fake_llm, "hi")
    assert trusted.status == 0, trusted.stderr
    assert marker.exists()


def test_stop_hook_keeps_the_agent_going_once_and_every_run_is_recorded(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    cmd = script(tmp_path / "hooks" / "stop.py", """
data = json.load(sys.stdin)
if not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests before stopping"}))
""")
    fake_llm.push(Reply(text="finished"), Reply(text="tests pass, finished"))
    run = run_p(proj, fake_llm, "work", "--settings",
                settings_with({"Stop": [{"hooks": [{"type": "command", "command": cmd}]}]}))
    assert run.status == 0, run.stderr
    assert run.json()["result"] == "tests pass, finished"
    assert "run the tests before stopping" in sent(fake_llm, 1)
    session = next(Path(os.environ["AGENTCLI_HOME"]).rglob(f"{run.json()['session_id']}.jsonl"))
    records = [json.loads(line) for line in session.read_text().splitlines()]
    hooks = [r["data"] for r in records if r.get("type") == "hook"]
    assert [h["event"] for h in hooks] == ["Stop", "Stop"]
    assert hooks[0]["exit_code"] == 0 and hooks[0]["decision"] == "block" and hooks[0]["duration_ms"] >= 0


def test_no_hook_configured_imports_nothing_of_the_hook_runner(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]), Reply(text="ok"))
    imported = imported_modules(["-p", "read", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert "agentcli.core.hooks" in imported and not any(m.startswith("agentcli.hooks") for m in imported)


def test_hooks_run_in_the_sandbox_when_sandbox_hooks_is_on(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """`sandbox_hooks = true` (an opt-in): like Bash, a hook may write in the project and nowhere else."""
    outside = Path("/var/tmp") / f"agentcli-hook-{os.getpid()}-{tmp_path.name}"
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    (proj / "mark.sh").write_text(f"touch {proj}/script-ran.txt\n")  # never trusted: confined, it runs anyway
    cmd = f"touch {outside}; touch {proj}/inside.txt; bash mark.sh"
    fake_llm.push(Reply(text="hi"))
    try:
        run = run_p(proj, fake_llm, "hello", "--settings", json.dumps({"sandbox_hooks": True, "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": cmd}]}]}}))
        assert run.status == 0, run.stderr
        assert (proj / "inside.txt").exists() and not outside.exists() and (proj / "script-ran.txt").exists()
    finally:
        outside.unlink(missing_ok=True)
