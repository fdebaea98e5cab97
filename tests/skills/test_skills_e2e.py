"""Skills seen from outside: the real `agentcli -p` against the fake LLM, with real public skills installed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM, request_tokens
from tests.skills.helpers import DATA, VENDORED, place, write_skill


def _env(fake: FakeLLM, home: Path) -> dict[str, str]:
    return {**provider_env(fake, ANTHROPIC), "HOME": str(home)}


def _fifty(folder: Path) -> None:
    """50 skills with real descriptions (the vendored ones' and their bodies' opening lines, a few hundred
    characters each)."""
    texts = []
    for name in VENDORED:
        text = (DATA / name / "SKILL.md").read_text()
        texts.append(text.split("description:", 1)[1].split("\n", 1)[0].strip())
    for i in range(50):
        desc = f"{texts[i % 3]} Variant {i} for team {i * 7} with its own templates and checks."
        write_skill(folder, f"skill-{i:02d}", json.dumps(desc))


def test_fifty_skills_grow_the_first_request_by_at_most_1500_tokens(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    bare, full = tmp_path / "bare", tmp_path / "full"
    _fifty(full / ".claude/skills")
    fake_llm.push(Reply(text="ok"), Reply(text="ok"))
    for home in (bare, full):
        run = agentcli(["-p", "hi", "--model", ANTHROPIC], proj, _env(fake_llm, home))
        assert run.status == 0, run.stderr
    without, with_ = (request_tokens(r.body) for r in fake_llm.requests)
    tools = [t["name"] for t in fake_llm.requests[1].body["tools"]]
    assert "Skill" in tools and "Skill" not in [t["name"] for t in fake_llm.requests[0].body["tools"]]
    assert 0 < with_ - without <= 1500, (without, with_)


def test_the_model_loads_a_skill_reads_beside_it_and_runs_its_script(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    skills = place(home / ".claude/skills")
    script = skills / "webapp-testing/scripts/with_server.py"
    command = f"{sys.executable} {script} --help"
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Skill", {"skill": "internal-comms"})]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": str(skills / "internal-comms/examples/general-comms.md")})]),
        Reply(tool_calls=[ToolCall("Skill", {"skill": "webapp-testing"})]),
        Reply(tool_calls=[ToolCall("Bash", {"command": command})]),
        Reply(text="done"),
    )
    run = agentcli(["-p", "write a status update", "--model", ANTHROPIC, "--output-format", "stream-json",
                    "--verbose", "--allowedTools", f"Bash({sys.executable} {script} *)", "--add-dir", str(skills)],
                   proj, _env(fake_llm, home))
    assert run.status == 0, run.stderr
    results = [_result(r.body) for r in fake_llm.requests[1:]]
    assert results[0].startswith(f"Base directory for this skill: {skills / 'internal-comms'}")
    assert "## When to use this skill" in results[0] and "description:" not in results[0]
    assert "internal company communication" in results[1]
    assert "Web Application Testing" in results[2]
    assert "Start one or more servers" in results[3] or "usage: with_server.py" in results[3], results[3]
    init = json.loads(run.stdout.splitlines()[0])
    assert sorted(init["skills"]) == sorted(VENDORED)


def test_a_skills_script_still_asks_under_the_normal_permissions(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    script = place(home / ".claude/skills", "webapp-testing") / "webapp-testing/scripts/with_server.py"
    fake_llm.push(Reply(tool_calls=[ToolCall("Skill", {"skill": "webapp-testing"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": f"{sys.executable} {script} --help"})]),
                  Reply(text="done"))
    run = agentcli(["-p", "test it", "--model", ANTHROPIC, "--output-format", "json"], proj, _env(fake_llm, home))
    denials = run.json()["permission_denials"]
    assert [d["tool_name"] for d in denials] == ["Bash"], run.stderr


def test_allowed_tools_spare_the_question_while_the_skill_is_active(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    write_skill(home / ".claude/skills", "maker", "makes files", extra="allowed-tools: Bash(touch *)\n")
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch before.txt"})]),
                  Reply(tool_calls=[ToolCall("Skill", {"skill": "maker"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": "rm a.py"})]),
                  Reply(text="done"))
    run = agentcli(["-p", "make", "--model", ANTHROPIC, "--output-format", "json"], proj, _env(fake_llm, home))
    assert not (proj / "before.txt").exists() and (proj / "made.txt").exists(), run.stderr
    assert (proj / "a.py").exists()  # narrowed to what the skill names: rm still asks (and -p denies)
    assert len(run.json()["permission_denials"]) == 2


def test_allowed_tools_never_reach_past_a_deny_rule(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    write_skill(home / ".claude/skills", "maker", "makes files", extra="allowed-tools: Bash(touch *)\n")
    fake_llm.push(Reply(tool_calls=[ToolCall("Skill", {"skill": "maker"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="done"))
    run = agentcli(["-p", "make", "--model", ANTHROPIC, "--output-format", "json", "--disallowedTools",
                    "Bash(touch made.txt)"], proj, _env(fake_llm, home))
    assert not (proj / "made.txt").exists() and run.json()["permission_denials"], run.stderr


def test_slash_skill_in_print_mode_sends_its_body(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    place(home / ".agents/skills", "brand-guidelines")
    fake_llm.push(Reply(text="styled"))
    run = agentcli(["-p", "/brand-guidelines the landing page", "--model", ANTHROPIC], proj, _env(fake_llm, home))
    assert run.status == 0, run.stderr
    sent = json.dumps(fake_llm.requests[0].body["messages"][-1])
    assert "Anthropic Brand Styling" in sent and "ARGUMENTS: the landing page" in sent


def _result(body: dict[str, object]) -> str:
    last = body["messages"][-1]  # type: ignore[index]
    for block in last["content"]:
        if block.get("type") == "tool_result":
            content = block["content"]
            return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
    raise AssertionError(f"no tool result in {last}")





def test_first_request_with_50_skills_and_50_mcp_tools(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """What is advertised but not loaded (skill descriptions, deferred MCP schemas), measured: the first request
    of a default session with 50 skills and 50 MCP tools, beside the same session with neither."""
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli/settings.local.toml").write_text("mcp_grace_s = 20\n")
    many = str(Path(__file__).parents[1] / "mcp/servers/many.py")
    config = json.dumps({"mcpServers": {"alpha": {"command": sys.executable, "args": [many, "alpha", "50"]}}})
    home = tmp_path / "home"
    _fifty(home / ".claude/skills")
    fake_llm.push(Reply(text="ok"), Reply(text="ok"))
    bare = agentcli(["-p", "hi", "--model", ANTHROPIC], proj, _env(fake_llm, tmp_path / "nobody"))
    full = agentcli(["-p", "hi", "--model", ANTHROPIC, "--mcp-config", config], proj, _env(fake_llm, home))
    assert bare.status == 0 and full.status == 0, full.stderr
    without, with_ = (request_tokens(r.body) for r in fake_llm.requests)
    names = [t["name"] for t in fake_llm.requests[1].body["tools"]]
    assert "Skill" in names and "McpToolSearch" in names, names
    # The whole first request (default tools, prompt, the skills' listing, the deferred MCP tools' names): the
    # issue's bound. Measured 2,629 tokens bare and 4,373 with both.
    assert without < with_ <= 5000, (without, with_)


def test_the_python_api_sees_skills_and_runs_one(tmp_path: Path, fake_llm: FakeLLM) -> None:
    import subprocess

    script = tmp_path / "run.py"
    script.write_text(
        "import asyncio, json, sys\n"
        "from agentcli import query\n"
        "from agentcli.core.events import SessionStarted\n"
        "async def main():\n"
        "    skills = None\n"
        "    async for ev in query('/internal-comms a status report', model=sys.argv[1]):\n"
        "        if isinstance(ev, SessionStarted):\n"
        "            skills = ev.skills\n"
        "    print(json.dumps(skills))\n"
        "asyncio.run(main())\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    home = tmp_path / "home"
    place(home / ".claude/skills")
    fake_llm.push(Reply(text="written"))
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= _env(fake_llm, home)
    done = subprocess.run([sys.executable, str(script), ANTHROPIC], cwd=proj, env=env, capture_output=True,
                          text=True, timeout=60)
    assert sorted(json.loads(done.stdout)) == sorted(VENDORED), done.stderr
    assert "When to use this skill" in json.dumps(fake_llm.requests[0].body["messages"])


def test_a_skill_tool_denied_by_name_is_not_offered(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    place(home / ".claude/skills", "brand-guidelines")
    fake_llm.push(Reply(text="a"), Reply(text="b"))
    agentcli(["-p", "hi", "--model", ANTHROPIC, "--disallowedTools", "Skill"], proj, _env(fake_llm, home))
    agentcli(["-p", "/brand-guidelines x", "--model", ANTHROPIC, "--tools", "Read"], proj, _env(fake_llm, home))
    for request in fake_llm.requests:
        assert "Skill" not in [t["name"] for t in request.body.get("tools", [])]
    assert "Anthropic Brand Styling" in json.dumps(fake_llm.requests[1].body["messages"])  # yours to run still


def test_tools_naming_skill_offers_it_without_a_notice(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = tmp_path / "home"
    place(home / ".claude/skills", "brand-guidelines")
    fake_llm.push(Reply(text="a"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--tools", "Read,Skill", "--output-format", "stream-json",
                    "--verbose"], proj, _env(fake_llm, home))
    assert [t["name"] for t in fake_llm.requests[0].body["tools"]] == ["Read", "Skill"]
    assert "no tool named" not in run.stdout
