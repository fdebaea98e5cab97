"""Claude Code's flags, as the Claude Agent SDK passes them, mean what they mean in Claude Code: each test runs the
real `agentcli -p` against the fake LLM server and checks what the model was sent or what the run did."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentcli.settings import trust
from tests.cli.helpers import ANTHROPIC, Run, agentcli, git_repo, provider_env
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM

MARK = "PROJECT-LOCAL-MARK-7"


def run(fake: FakeLLM, proj: Path, *args: str, fmt: str = "json") -> Run:
    return agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", fmt, *args], proj,
                    provider_env(fake, ANTHROPIC))


def system_text(body: dict[str, Any]) -> str | None:
    system = body.get("system")
    if system is None:
        return None
    return system if isinstance(system, str) else "".join(b["text"] for b in system)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})


def test_system_prompt_replaces_everything_verbatim(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="a"), Reply(text="b"), Reply(text="c"))
    custom = "You answer in haiku.\nOnly haiku."
    assert run(fake_llm, proj, "--system-prompt", custom).status == 0
    assert run(fake_llm, proj, "--system-prompt", "").status == 0
    assert run(fake_llm, proj, "--append-system-prompt", "APPENDED-LAST").status == 0
    replaced, empty, appended = (system_text(r.body) for r in fake_llm.requests)
    assert replaced == custom
    assert empty is None  # the SDK's default (`--system-prompt ""`): no system prompt at all
    assert appended is not None and "You are agentcli" in appended and appended.endswith("APPENDED-LAST")


def test_system_prompt_file(proj: Path, fake_llm: FakeLLM, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("From a file: be brief.")
    fake_llm.push(Reply(text="ok"), Reply(text="ok"))
    assert run(fake_llm, proj, "--system-prompt-file", str(prompt)).status == 0
    assert system_text(fake_llm.requests[0].body) == "From a file: be brief."
    assert run(fake_llm, proj, "--append-system-prompt-file", str(prompt)).status == 0
    appended = system_text(fake_llm.requests[1].body) or ""
    assert appended.startswith("You are agentcli") and appended.endswith("From a file: be brief.")
    missing = run(fake_llm, proj, "--system-prompt-file", str(tmp_path / "nope.md"))
    assert missing.status == 2 and "--system-prompt-file" in missing.stderr and "[usage]" in missing.stderr


def test_tools_is_the_exact_tool_set(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="a"), Reply(text="b"), Reply(text="c"), Reply(text="d"))
    assert run(fake_llm, proj, "--tools", "").status == 0
    assert run(fake_llm, proj, "--tools", "Read,Grep").status == 0
    assert run(fake_llm, proj, "--tools", "default").status == 0
    odd = run(fake_llm, proj, "--tools", "Read Frobnicate", fmt="stream-json")
    assert odd.status == 0 and any("no tool named Frobnicate" in line.get("text", "") for line in odd.lines())
    none, two, default, read = (r.body for r in fake_llm.requests)
    assert "tools" not in none or none["tools"] == []
    assert tool_names(two) == ["Read", "Grep"]
    assert {"Read", "Edit", "Bash", "Task"} <= set(tool_names(default))
    assert tool_names(read) == ["Read"]


def test_disallowed_tools_by_name_are_not_offered(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch nope", "description": "x"})]),
                  Reply(text="done"))
    result = run(fake_llm, proj, "--disallowedTools", "Write,Bash", "--disallowedTools", "Edit(*.py)")
    assert result.status == 0, result.stderr
    offered = tool_names(fake_llm.requests[0].body)
    assert "Write" not in offered and "Bash" not in offered and "Edit" in offered  # a rule with a specifier: kept
    assert "Unknown tool 'Bash'" in json.dumps(fake_llm.requests[1].body["messages"])
    assert not (proj / "nope").exists()


def test_setting_sources_choose_the_layers(proj: Path, fake_llm: FakeLLM) -> None:
    home = Path(os.environ["AGENTCLI_HOME"])
    home.joinpath("config.toml").write_text(f'model = "{ANTHROPIC}"\nappend_system_prompt = "USER-MARK"\n')
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(f'append_system_prompt = "{MARK}"\n')
    trust.trust(proj)
    (proj / "AGENTS.md").write_text("PROJECT-MEMORY-MARK\n")
    fake_llm.push(Reply(text="a"), Reply(text="b"), Reply(text="c"))
    env = provider_env(fake_llm, ANTHROPIC)
    for sources in ([], ["--setting-sources="], ["--setting-sources", "user,project"]):
        result = agentcli(["-p", "go", "--output-format", "json", *sources], proj, env)
        assert result.status == 0, result.stderr  # the user's model still loads: it is the provider set-up
    every, none, user_project = (system_text(r.body) or "" for r in fake_llm.requests)
    assert MARK in every and "PROJECT-MEMORY-MARK" in every
    assert MARK not in none and "USER-MARK" not in none and "PROJECT-MEMORY-MARK" not in none
    assert "USER-MARK" in user_project and "PROJECT-MEMORY-MARK" in user_project and MARK not in user_project
    bad = agentcli(["-p", "go", "--setting-sources", "user,team"], proj, env)
    assert bad.status == 2 and "unknown source 'team'" in bad.stderr


def test_setting_sources_project_does_not_bypass_trust(proj: Path, fake_llm: FakeLLM) -> None:
    """An untrusted project's shared files still grant, hook and start nothing, whatever --setting-sources says."""
    hooked = proj / "hooked"
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.toml").write_text(
        '[permissions]\nallow = ["Bash"]\n'
        f'[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\ncommand = "touch {hooked}"\n')
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {"command": "touch", "args": ["mcp"]}}}))
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch pwned", "description": "x"})]),
                  Reply(text="done"))
    result = run(fake_llm, proj, "--setting-sources", "project,local", fmt="stream-json")
    assert result.status == 3, result.stderr
    assert [d["tool_name"] for d in result.lines()[-1]["permission_denials"]] == ["Bash"]
    assert result.lines()[0]["mcp_servers"] == [{"name": "evil", "status": "untrusted"}]
    assert not (proj / "pwned").exists() and not hooked.exists() and not (proj / "mcp").exists()


def test_session_id(proj: Path, fake_llm: FakeLLM) -> None:
    sid = str(uuid.uuid4())
    fake_llm.push(Reply(text="one"))
    first = run(fake_llm, proj, f"--session-id={sid}")
    assert first.status == 0 and first.json()["session_id"] == sid
    taken = run(fake_llm, proj, f"--session-id={sid}")
    assert taken.status == 2 and sid in taken.stderr
    bad = run(fake_llm, proj, "--session-id=not-a-uuid")
    assert bad.status == 2 and "UUID" in bad.stderr


def _records(sid: str) -> list[dict[str, Any]]:
    home = Path(os.environ["AGENTCLI_HOME"])
    found = list(home.rglob(f"{sid}.jsonl"))
    assert len(found) == 1
    return [json.loads(line) for line in found[0].read_text().splitlines() if line.strip()]


def _texts(body: dict[str, Any]) -> list[str]:
    out = []
    for m in body["messages"]:
        content = m["content"]
        out.extend([content] if isinstance(content, str) else [b.get("text", "") for b in content])
    return [t for t in out if t]


def test_resume_session_at_truncates(proj: Path, fake_llm: FakeLLM) -> None:
    sid = str(uuid.uuid4())
    fake_llm.push(Reply(text="first answer"), Reply(text="second answer"), Reply(text="third"), Reply(text="4"))
    env = provider_env(fake_llm, ANTHROPIC)
    assert agentcli(["-p", "first question", "--model", ANTHROPIC, f"--session-id={sid}"], proj, env).status == 0
    assert agentcli(["-p", "second question", "--model", ANTHROPIC, f"--resume={sid}"], proj, env).status == 0
    first_answer = next(r["id"] for r in _records(sid) if r.get("type") == "message"
                        and "first answer" in json.dumps(r))
    cut = agentcli(["-p", "third question", "--model", ANTHROPIC, f"--resume={sid}",
                    f"--resume-session-at={first_answer}"], proj, env)
    assert cut.status == 0, cut.stderr
    sent = _texts(fake_llm.requests[2].body)
    assert "first question" in sent[0] and "first answer" in sent and "third question" in sent[-1]
    assert not any("second" in t for t in sent)
    again = agentcli(["-p", "fourth", "--model", ANTHROPIC, f"--resume={sid}"], proj, env)  # the cut branch
    assert again.status == 0 and not any("second" in t for t in _texts(fake_llm.requests[3].body))
    missing = agentcli(["-p", "x", "--model", ANTHROPIC, f"--resume={sid}", "--resume-session-at=ffffffff"],
                       proj, env)
    assert missing.status == 2 and "no message 'ffffffff'" in missing.stderr


def test_resume_session_at_with_fork_session(proj: Path, fake_llm: FakeLLM) -> None:
    sid = str(uuid.uuid4())
    fake_llm.push(Reply(text="first answer"), Reply(text="second answer"), Reply(text="forked"))
    env = provider_env(fake_llm, ANTHROPIC)
    assert agentcli(["-p", "first question", "--model", ANTHROPIC, f"--session-id={sid}"], proj, env).status == 0
    assert agentcli(["-p", "second question", "--model", ANTHROPIC, "--continue"], proj, env).status == 0
    at = next(r["id"] for r in _records(sid) if r.get("type") == "message" and "first answer" in json.dumps(r))
    fork = agentcli(["-p", "fork question", "--model", ANTHROPIC, "--output-format", "json", "--continue",
                     "--fork-session", f"--resume-session-at={at[:8]}"], proj, env)
    assert fork.status == 0, fork.stderr
    assert fork.json()["session_id"] != sid
    sent = _texts(fake_llm.requests[2].body)
    assert "first answer" in sent and not any("second" in t for t in sent)
    assert len([r for r in _records(sid) if r.get("type") == "message"]) == 4  # the original is untouched
    alone = agentcli(["-p", "x", "--model", ANTHROPIC, f"--resume-session-at={at}"], proj, env)
    assert alone.status == 2 and "needs --resume or --continue" in alone.stderr


def test_fallback_model_after_overload(proj: Path, fake_llm: FakeLLM) -> None:
    Path(os.environ["AGENTCLI_HOME"], "config.toml").write_text("max_retries = 0\n")
    fake_llm.push(Reply(fault=Fault.overloaded()), Reply(text="from the fallback"), Reply(text="still fallback"))
    result = run(fake_llm, proj, "--fallback-model", "claude-haiku-4-5", fmt="stream-json")
    assert result.status == 0, result.stderr
    final = result.lines()[-1]
    assert final["subtype"] == "success" and final["result"] == "from the fallback"
    assert [r.body["model"] for r in fake_llm.requests] == ["claude-sonnet-4-5", "claude-haiku-4-5"]
    assert list(final["modelUsage"]) == ["claude-haiku-4-5"]
    assert any("fallback model claude-haiku-4-5" in line.get("text", "") for line in result.lines())
    same = run(fake_llm, proj, "--fallback-model", "claude-sonnet-4-5")
    assert same.status == 2 and "is the main model" in same.stderr


def test_fallback_is_not_used_for_other_failures(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault.unauthorized()))
    result = run(fake_llm, proj, "--fallback-model", "claude-haiku-4-5")
    assert result.status == 2 and len(fake_llm.requests) == 1


def test_thinking_flags(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="a"), Reply(text="b"), Reply(text="c"))
    assert run(fake_llm, proj, "--max-thinking-tokens", "8000").status == 0
    assert run(fake_llm, proj, "--effort", "high", "--thinking", "disabled").status == 0
    maxed = run(fake_llm, proj, "--effort", "max")
    assert maxed.status == 0 and "--effort max is sent as high" in maxed.stderr
    medium, disabled, high = (r.body for r in fake_llm.requests)
    assert medium["thinking"]["budget_tokens"] == 10000
    assert "thinking" not in disabled
    assert high["thinking"]["budget_tokens"] == 31999


def test_flags_it_cannot_honour(proj: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="ok"))
    ignored = run(fake_llm, proj, "--betas", "context-1m-2025-08-07", "--task-budget", "1000",
                  "--thinking-display", "summarized", "--debug-to-stderr", "--include-hook-events")
    assert ignored.status == 0, ignored.stderr
    notes = [line for line in ignored.stderr.splitlines() if "note:" in line]
    assert len(notes) == 4 and all(n.count("ignored") == 1 for n in notes)
    for argv in (["--plugin-dir", str(proj)], ["--session-mirror"], ["--resume-drops-turn=abc"]):
        refused = run(fake_llm, proj, *argv)
        assert refused.status == 2 and "[unsupported_flag]" in refused.stderr and "not supported" in refused.stderr
    unknown = run(fake_llm, proj, "--no-such-flag")
    assert unknown.status == 2 and "no such option --no-such-flag" in unknown.stderr
    assert len(fake_llm.requests) == 1


def test_dont_ask_denies_what_no_rule_allows(proj: Path, fake_llm: FakeLLM) -> None:
    Path(os.environ["AGENTCLI_HOME"], "config.toml").write_text('[permissions]\ndefault_mode = "bypassPermissions"\n')
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "echo allowed", "description": "x"}),
                                    ToolCall("Bash", {"command": "touch denied", "description": "y"})]),
                  Reply(text="done"))
    result = run(fake_llm, proj, "--permission-mode", "dontAsk", "--allowedTools", "Bash(echo:*)")
    assert result.status == 3, result.stderr
    assert [d["tool_input"]["command"] for d in result.json()["permission_denials"]] == ["touch denied"]
    assert not (proj / "denied").exists()


def test_agents_json_defines_subagents(proj: Path, fake_llm: FakeLLM) -> None:
    agents = {"reviewer": {"description": "Reviews code", "prompt": "You are REVIEWER-PROMPT.", "tools": ["Read"]}}
    fake_llm.push(Reply(tool_calls=[ToolCall("Task", {"description": "review", "prompt": "review a.py",
                                                      "subagent_type": "reviewer"})]),
                  Reply(text="looks fine", when="review a.py"), Reply(text="The reviewer says it looks fine."))
    result = run(fake_llm, proj, "--agents", json.dumps(agents))
    assert result.status == 0, result.stderr
    child = fake_llm.requests[1].body
    assert "REVIEWER-PROMPT" in (system_text(child) or "") and tool_names(child) == ["Read"]
    bad = run(fake_llm, proj, "--agents", json.dumps({"x": {"description": "d", "prompt": "p", "skills": ["a"]}}))
    assert bad.status == 2 and "skills not supported" in bad.stderr


def test_setting_sources_choose_the_mcp_servers(proj: Path, fake_llm: FakeLLM) -> None:
    Path(os.environ["AGENTCLI_HOME"], "config.toml").write_text("mcp_grace_s = 0\n")
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text('[mcp_servers.localsrv]\ncommand = "true"\n')
    fake_llm.push(Reply(text="a"), Reply(text="b"))
    every = run(fake_llm, proj, fmt="stream-json")
    without_local = run(fake_llm, proj, "--setting-sources", "user,project", fmt="stream-json")
    assert [s["name"] for s in every.lines()[0]["mcp_servers"]] == ["localsrv"]
    assert without_local.status == 0 and without_local.lines()[0]["mcp_servers"] == []
