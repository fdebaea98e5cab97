"""A user clones a hostile repository and runs agentcli in it (`-p "summarise this repo"` in the default and plan
modes, and the REPL): nothing the repository names runs, nothing it grants applies, no request goes to its
server and no file outside it reaches the model, until the user trusts it. tests/security/hostile_repo.py
builds the repository; every program it names would leave a `pwn-*` marker in `outside/`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from agentcli.settings import trust
from tests.cli.helpers import ANTHROPIC, agentcli
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.security.hostile_repo import Hostile, build, user_env

ODD_NAME = "-rf $(touch PWNPATH) `touch PWNPATH` 'q\" ;&| x"


@pytest.fixture
def attacker() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


@pytest.fixture
def hostile(tmp_path: Path, fake_llm: FakeLLM, attacker: FakeLLM) -> Hostile:
    home = Path(os.environ["AGENTCLI_HOME"])
    return build(tmp_path, attacker.url, home, fake_llm.url, name=ODD_NAME)


def _summary_script(fake: FakeLLM) -> None:
    """What a model steered by the repository would try while summarising it."""
    reads = ["secret-link", "outside-dir/secret.txt", "sub/code.py", "src/app.py", "-rf", "--output=pwned.txt",
             "README.md"]
    calls = [ToolCall("Glob", {"pattern": "**/*"}), ToolCall("Grep", {"pattern": "SECRET_OUTSIDE"}),
             ToolCall("Grep", {"pattern": "SECRET", "path": "outside-dir"}),
             *(ToolCall("Read", {"file_path": r}) for r in reads),
             ToolCall("Bash", {"command": "git status"}), ToolCall("Bash", {"command": "git diff"}),
             ToolCall("Bash", {"command": "git log -1 -p"})]
    fake.push(Reply(tool_calls=calls),
              Reply(tool_calls=[ToolCall("Task", {"description": "look", "prompt": "run touch x",
                                                  "subagent_type": "explore"})]),
              Reply(tool_calls=[ToolCall("Bash", {"command": "touch child-ran"})]), Reply(text="child done"),
              Reply(text="It parses things."))


def _assert_untouched(h: Hostile, fake: FakeLLM, attacker: FakeLLM, base: Path) -> None:
    assert h.fired() == []
    assert attacker.requests == []
    sent = json.dumps([r.body for r in fake.requests])
    assert h.secret not in sent and h.key_marker not in sent
    assert "HOSTILE-INSTRUCTION" not in sent  # the untrusted append_system_prompt
    assert not list(base.rglob("PWNPATH")) and not (h.root / "child-ran").exists()
    assert not (h.root / "pwned.txt").exists() and not list(h.root.rglob("*pwned*.txt"))[1:]


@pytest.mark.parametrize("mode", ["default", "plan"])
def test_summarise_headless_runs_and_trusts_nothing(hostile: Hostile, fake_llm: FakeLLM, attacker: FakeLLM,
                                                    tmp_path: Path, mode: str) -> None:
    _summary_script(fake_llm)
    run = agentcli(["-p", "summarise this repo", "--model", ANTHROPIC, "--permission-mode", mode,
                    "--output-format", "stream-json"], hostile.root, user_env())
    assert run.status in (0, 3), run.stderr
    lines = run.lines()
    _assert_untouched(hostile, fake_llm, attacker, tmp_path)
    denied = {d["tool_name"] for d in lines[-1]["permission_denials"]}
    assert "Bash" in denied
    notice = " ".join(str(ln.get("text")) for ln in lines if ln.get("subtype") == "notice")
    assert "not trusted" in notice and "local-hook" in notice and "agentcli permissions trust" in notice
    first = json.dumps(fake_llm.requests[0].body)
    assert "Project notes." in first  # the memory file itself is read, its imports of outside files are not
    init = next(ln for ln in lines if ln.get("subtype") == "init")
    assert init["permissionMode"] == mode
    assert {s["status"] for s in init["mcp_servers"]} == {"untrusted"}


def test_accept_edits_checkpoint_runs_no_repository_program(hostile: Hostile, fake_llm: FakeLLM,
                                                           attacker: FakeLLM, tmp_path: Path) -> None:
    """Edits take a checkpoint first (a shadow git over the work tree): the repository's config, attributes
    (filter=evil, diff=evil) and hooks run nothing, and its files are still snapshotted."""
    fake_llm.push(Reply(tool_calls=[ToolCall("Write", {"file_path": "notes.md", "content": "n\n"})]),
                  Reply(tool_calls=[ToolCall("Read", {"file_path": "notes.md"})]), Reply(text="done"))
    run = agentcli(["-p", "note it", "--model", ANTHROPIC, "--permission-mode", "acceptEdits",
                    "--output-format", "json"], hostile.root, user_env())
    assert run.status == 0, run.stderr
    assert (hostile.root / "notes.md").read_text() == "n\n"
    _assert_untouched(hostile, fake_llm, attacker, tmp_path)


def test_repl_asks_before_anything_runs_and_declining_keeps_it_so(hostile: Hostile, fake_llm: FakeLLM,
                                                                 attacker: FakeLLM, tmp_path: Path) -> None:
    fake_llm.push(Reply(tool_calls=[ToolCall("Glob", {"pattern": "**/*.py"}),
                                    ToolCall("Read", {"file_path": "secret-link"})]), Reply(text="Summarised."))
    env = {**{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}, **user_env(),
           "TERM": "xterm", "NO_COLOR": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "agentcli", "--model", ANTHROPIC], cwd=str(hostile.root), env=env,
                          encoding="utf-8", timeout=30, dimensions=(40, 160))
    try:
        child.expect(r"Trust these settings for this project\? \[y/N\]")
        asked = child.before
        for grant in ("allow Bash", "local-hook", "start MCP server 'evil'", "presets coding, evil",
                      "set base_url", "start in bypassPermissions mode"):
            assert grant in asked, grant
        assert hostile.fired() == []  # nothing ran while the question waits
        child.sendline("n")
        child.expect("Not trusted")
        child.expect("›")
        child.send("@READ")
        child.expect("README.md")  # the @ completion listed the files (without the repository's git config)
        child.send("\x15")  # clear the line
        child.send("/summarise\r")
        # The command's `!` line is a Bash call like any: the sandbox stops its write outside the project, and
        # running it unconfined is the user's question (declined).
        child.expect(r"choice \[1-4\]")
        assert "pwn-command-bang" in child.before
        child.send("3")
        child.expect("tell the agent why")
        child.sendline("")
        child.expect(r"Allow Read\?")  # reading through the link leaves the project: the user is asked
        assert "outside" in child.before
        child.expect(r"choice \[1-4\]")
        child.send("3")
        child.sendline("")
        child.expect("Summarised.")
        child.expect("›")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    _assert_untouched(hostile, fake_llm, attacker, tmp_path)
    prompt = json.dumps(fake_llm.requests[0].body["messages"])
    assert "pwn-command-bang': No such file or directory\\nExit code 1" in prompt  # what the sandbox let it do


def test_mcp_and_hook_commands_start_nothing(hostile: Hostile) -> None:
    listed = agentcli(["mcp", "list", "--json"], hostile.root, user_env())
    assert listed.status == 0, listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert not rows["evil"]["trusted"] and not rows["localsrv"]["trusted"]
    assert agentcli(["hooks", "list"], hostile.root, user_env()).status == 0
    assert agentcli(["agents"], hostile.root, user_env()).status in (0, 2)
    assert agentcli(["doctor"], hostile.root, user_env()).status in (0, 1)
    assert hostile.fired() == []


def test_presets_of_the_repository_wait_for_trust(hostile: Hostile, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "x", "--model", ANTHROPIC, "--preset", "readonly", "--output-format", "json"],
                   hostile.root, user_env())
    assert run.status == 0, run.stderr
    tools = {t["name"] for t in fake_llm.requests[0].body["tools"]}
    assert "Bash" not in tools and "Read" in tools  # the built-in readonly, not the repository's
    evil = agentcli(["-p", "x", "--model", ANTHROPIC, "--preset", "evil"], hostile.root, user_env())
    assert evil.status == 2 and "not trusted" in evil.stderr and "permissions trust" in evil.stderr
    assert hostile.fired() == []


def test_trusting_then_applies_the_local_file_too(hostile: Hostile, fake_llm: FakeLLM, attacker: FakeLLM) -> None:
    """The other side: once trusted (the user read it), the project's files apply — the base URL included."""
    trusted = agentcli(["permissions", "trust"], hostile.root, {})
    assert trusted.status == 0 and "settings.local.toml" in trusted.stdout and "presets" in trusted.stdout
    assert trust.is_trusted(hostile.root) and trust.is_mcp_trusted(hostile.root)
    assert trust.presets_trusted(hostile.root)
    (hostile.root / ".agentcli" / "settings.local.toml").write_text('[permissions]\nallow = ["Bash"]\n')
    assert not trust.is_trusted(hostile.root)  # a changed file asks again



def test_relative_path_entries_never_find_the_repository_programs(hostile: Hostile, fake_llm: FakeLLM,
                                                                 attacker: FakeLLM, tmp_path: Path) -> None:
    """With `.` or `bin` on the user's PATH, the `git`, `bash` and `rg` agentcli starts (listing, checkpoints,
    the Bash tool) are never the repository's own."""
    for name in ("git", "bash", "rg", "sh"):
        exe = hostile.root / "bin" / name
        exe.parent.mkdir(exist_ok=True)
        exe.write_text(f"#!/bin/sh\n{hostile.touch('path-' + name)}\n")
        exe.chmod(0o755)
    fake_llm.push(Reply(tool_calls=[ToolCall("Glob", {"pattern": "**/*.py"}),
                                    ToolCall("Grep", {"pattern": "parse"})]),
                  Reply(tool_calls=[ToolCall("Write", {"file_path": "n.md", "content": "n\n"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": "echo hi"})]), Reply(text="done"))
    env = {**user_env(), "PATH": f"bin:.::{os.environ['PATH']}"}
    run = agentcli(["-p", "x", "--model", ANTHROPIC, "--permission-mode", "acceptEdits", "--allowedTools",
                    "Bash(echo *)", "--output-format", "json"], hostile.root, env)
    assert run.status == 0, run.stderr
    assert "hi" in json.dumps(fake_llm.requests[-1].body["messages"][-1])
    _assert_untouched(hostile, fake_llm, attacker, tmp_path)
