"""Issue 26: Claude Code's own files work where they are, with no import step and no flag, once trusted:
`.claude/settings.json` (permissions, hooks, model), `.claude/agents/`, `.claude/commands/`, the user's
`~/.claude/` and `~/.claude.json`. HOME is a temp dir in every test that touches `~/.claude*`."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentcli.agents.definitions import load_definitions
from agentcli.settings import trust
from agentcli.settings.config import load_settings
from agentcli.settings.custom_commands import load_commands
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

# A PreToolUse hook as Claude Code's hooks guide writes them: the tool call as JSON on stdin, exit 2 blocks it
# and stderr is the reason the model reads.
BLOCK_RM = """import json, sys
call = json.load(sys.stdin)
if "rm -rf" in call.get("tool_input", {}).get("command", ""):
    print("Blocked by the project hook: no rm -rf", file=sys.stderr)
    sys.exit(2)
"""
SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run lint)", "Bash(npm run test:*)"],
                    "deny": ["Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)"]},
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/block_rm.py'}]}]},
    "env": {"FOO": "bar"},
    "includeCoAuthoredBy": False,
}
AGENT = """---
name: code-reviewer
description: Expert code review specialist. Use immediately after writing or modifying code.
tools: Read, Grep, Glob
---
You are a senior code reviewer ensuring high standards of code quality.
"""
COMMAND = """---
description: Fix a GitHub issue
argument-hint: [issue-number]
---
Fix issue #$ARGUMENTS following our coding standards
"""


def claude_project(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "proj", {
        "build/out.txt": "built\n",
        ".claude/settings.json": json.dumps(SETTINGS),
        ".claude/hooks/block_rm.py": BLOCK_RM,
        ".claude/agents/code-reviewer.md": AGENT,
        ".claude/commands/fix-issue.md": COMMAND,
    })


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp HOME with Claude Code's default user folder (no CLAUDE_CONFIG_DIR)."""
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return h


def test_project_files_wait_for_trust_then_apply(tmp_path: Path, home: Path) -> None:
    proj = claude_project(tmp_path)
    before = load_settings(proj, {})
    assert not any(src.startswith(str(proj / ".claude")) for src, _ in before.hooks.layers)
    assert any("block_rm.py" in g for g in before.untrusted)
    trust.trust(proj)
    after = load_settings(proj, {})
    assert [src for src, _ in after.hooks.layers] == [str(proj / ".claude" / "settings.json")]
    assert after.untrusted == ()
    notices = "\n".join(after.notices)
    assert "'includeCoAuthoredBy' ignored (not supported by agentcli)" in notices
    assert "'env.FOO' ignored" in notices


def test_agents_and_commands_are_found_with_no_step(tmp_path: Path, home: Path) -> None:
    proj = claude_project(tmp_path)
    (home / ".claude" / "agents").mkdir()
    (home / ".claude" / "agents" / "mine.md").write_text(AGENT.replace("code-reviewer", "mine"))
    (home / ".claude" / "commands").mkdir()
    (home / ".claude" / "commands" / "hi.md").write_text("Say hi to $1\n")
    found, warnings = load_definitions(proj)
    assert {"code-reviewer", "mine"} <= set(found) and warnings == []
    commands = load_commands(proj)
    assert commands["fix-issue"].expand("123") == "Fix issue #123 following our coding standards"
    assert commands["hi"].expand("Ann") == "Say hi to Ann"
    (proj / ".claude" / "commands" / "status.md").write_text("Current: !`git status`\nSummarise it.\n")
    assert load_commands(proj)["status"].shell_commands() == ["git status"]


def test_precedence_and_sources(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proj = git_repo(tmp_path / "proj", {
        ".claude/settings.json": json.dumps({"model": "claude-opus-4-1"}),
        ".claude/settings.local.json": json.dumps({"model": "claude-sonnet-4-5", "modelOverrides": {"a": "b"}}),
    })
    (home / ".claude" / "settings.json").write_text(json.dumps({"model": "claude-haiku-4-5"}))
    trust.trust(proj)  # modelOverrides is withheld until then
    assert load_settings(proj, {}).model.name == "claude-sonnet-4-5"  # local > project > user
    assert load_settings(proj, {}).model.overrides == {"a": "b"}
    assert load_settings(proj, {"setting_sources": ("user",)}).model.name == "claude-haiku-4-5"
    assert load_settings(proj, {"setting_sources": ("user", "project")}).model.name == "claude-opus-4-1"
    monkeypatch.setenv("ANTHROPIC_MODEL", "from-env")
    monkeypatch.setenv("MAX_THINKING_TOKENS", "2048")
    settings = load_settings(proj, {})
    assert settings.model.name == "from-env" and settings.model.max_thinking_tokens == 2048
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "settings.json").write_text(json.dumps({"model": "from-config-dir"}))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(other))
    monkeypatch.delenv("ANTHROPIC_MODEL")
    assert load_settings(proj, {"setting_sources": ("user",)}).model.name == "from-config-dir"


def test_a_wrong_type_in_settings_json_names_the_file(tmp_path: Path, home: Path) -> None:
    (home / ".claude" / "settings.json").write_text(json.dumps({"model": 5}))
    with pytest.raises(Exception, match=r"settings\.json.*'model'"):
        load_settings(tmp_path, {})


def test_claude_json_mcp_servers_are_handed_on_and_doctor_lists_every_source(tmp_path: Path, home: Path) -> None:
    proj = claude_project(tmp_path)
    state = {"mcpServers": {"everywhere": {"command": "no-such-mcp-server", "args": ["srv"]}},
             "projects": {str(proj.resolve()): {"mcpServers": {"here": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}}}
    (home / ".claude.json").write_text(json.dumps(state))
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {"shared": {"command": "srv"}}}))
    settings = load_settings(proj, {})
    assert [set(t) for _, t in settings.mcp.claude_servers] == [{"everywhere"}, {"here"}]
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    doctor = agentcli(["doctor"], proj, env)
    out = doctor.stdout
    assert f"claude user: {home / '.claude' / 'settings.json'} — absent" in out
    assert f"claude project: {proj / '.claude' / 'settings.json'} — not trusted" in out
    assert "ignored: hooks (withheld until the project is trusted)" in out
    assert "ignored: includeCoAuthoredBy (not supported by agentcli)" in out
    assert "keys taken: mcpServers.everywhere, mcpServers.here" in out
    assert "user: " in out and "project: " in out and "local: " in out
    assert f".mcp.json: {proj / '.mcp.json'} — not trusted" in out and "servers: shared" in out


def test_the_project_hook_blocks_rm_in_a_headless_run_once_trusted(
    tmp_path: Path, home: Path, fake_llm: FakeLLM
) -> None:
    proj = claude_project(tmp_path)
    trusted = agentcli(["permissions", "trust"], proj, {"HOME": str(home)}, stdin="y\n")  # as a person trusts it
    assert trusted.status == 0, trusted.stderr
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "rm -rf build"})]), Reply(text="done"))
    env = {**provider_env(fake_llm, ANTHROPIC), "HOME": str(home)}
    run = agentcli(["-p", "clean up", "--model", ANTHROPIC, "--allowedTools", "Bash"], proj, env)
    assert run.status == 3 and "denied tool calls: Bash" in run.stderr, run.stderr  # the hook's denial
    assert (proj / "build" / "out.txt").exists()
    assert "Blocked by the project hook" in json.dumps(fake_llm.requests[1].body["messages"])


def test_the_sdk_with_project_setting_source_blocks_rm_through_the_project_hook(
    tmp_path: Path, home: Path, fake_llm: FakeLLM
) -> None:
    from claude_agent_sdk import query

    from tests.sdk.helpers import wrapper

    proj = claude_project(tmp_path)
    trusted = agentcli(["permissions", "trust"], proj, {"HOME": str(home)}, stdin="y\n")  # as a person trusts it
    assert trusted.status == 0, trusted.stderr
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "rm -rf build"})]), Reply(text="done"))
    from claude_agent_sdk import ClaudeAgentOptions

    options = ClaudeAgentOptions(cli_path=wrapper(tmp_path), cwd=proj, model=ANTHROPIC, allowed_tools=["Bash"],
                                 setting_sources=["project"], env={**provider_env(fake_llm, ANTHROPIC),
                                                                   "HOME": str(home)})

    async def run() -> list[Any]:
        return [m async for m in query(prompt="clean up", options=options)]

    asyncio.run(run())
    assert (proj / "build" / "out.txt").exists()
    assert "Blocked by the project hook" in json.dumps(fake_llm.requests[1].body["messages"])


def test_settings_flag_in_claude_code_format(tmp_path: Path) -> None:
    flag = json.dumps({"modelOverrides": {"claude-x": "openai/gpt-4.1"}, "env": {"MAX_THINKING_TOKENS": "900"},
                       "spinnerTipsEnabled": False, "max_turns": 4})
    settings = load_settings(tmp_path, {"settings": flag})
    assert settings.model.overrides == {"claude-x": "openai/gpt-4.1"}
    assert settings.model.max_thinking_tokens == 900 and settings.session.max_turns == 4
    assert any("'spinnerTipsEnabled' ignored (not supported by agentcli)" in n for n in settings.notices)


def test_claude_permission_rules_deny_always_and_allow_once_trusted(tmp_path: Path, home: Path) -> None:
    from agentcli.permissions.loader import load_policy
    from agentcli.tools.registry import load_tool

    proj = claude_project(tmp_path)
    bash = load_tool("Bash")
    untrusted = load_policy(proj, trust_project=False)
    assert untrusted.check(bash, {"command": "curl http://x"}).behavior == "deny"  # a deny rule always applies
    assert untrusted.check(bash, {"command": "npm run lint"}).behavior == "ask"  # an allow waits for trust
    trust.trust(proj)
    trusted = load_policy(proj)
    assert trusted.check(bash, {"command": "npm run lint"}).behavior == "allow"
    assert trusted.check(bash, {"command": "curl http://x"}).behavior == "deny"
    assert trusted.check(load_tool("Read"), {"file_path": "secrets/key.txt"}).behavior == "deny"


def test_a_fifo_as_a_settings_file_is_an_error_not_a_hang(tmp_path: Path, home: Path) -> None:
    from agentcli.errors import ConfigError

    for name in (".claude/settings.json", ".agentcli/settings.toml", ".agentcli/settings.local.toml"):
        proj = git_repo(tmp_path / name.replace("/", "_"), {"a.py": ""})
        (proj / name).parent.mkdir(exist_ok=True)
        os.mkfifo(proj / name)
        with pytest.raises(ConfigError, match="not a readable regular file"):
            load_settings(proj, {})
