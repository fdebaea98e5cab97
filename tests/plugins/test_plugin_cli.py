"""`agentcli plugin …` with a real public marketplace (anthropics/skills, vendored), as a folder and as a git
repository: install pinned, the plugin's skills namespaced in a scripted run, list, update, uninstall."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.plugins.helpers import commit, marketplace

REF = "example-skills@anthropic-agent-skills"


def _ok(args: list[str], cwd: Path) -> str:
    run = agentcli(args, cwd)
    assert run.status == 0, run.stderr
    return run.stdout


def test_install_from_a_git_marketplace_runs_its_skill_and_uninstall_removes_it(
        tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    market = marketplace(tmp_path / "market", git=True)
    assert "Added marketplace anthropic-agent-skills (git" in _ok(["plugin", "marketplace", "add", f"file://{market}"],
                                                                  proj)
    assert "pinned" in _ok(["plugin", "install", REF], proj)
    rows = json.loads(_ok(["plugin", "list", "--json"], proj))
    assert rows[0]["plugin"] == REF and rows[0]["source"] == f"file://{market}"
    assert rows[0]["state"] == "enabled" and rows[0]["trust"].startswith("untrusted")
    fake_llm.push(Reply(tool_calls=[ToolCall("Skill", {"skill": "example-skills:internal-comms"})]), Reply(text="ok"))
    env = {**provider_env(fake_llm, ANTHROPIC), "HOME": str(tmp_path / "home")}
    run = agentcli(["-p", "write an update", "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose"],
                   proj, env)
    assert run.status == 0, run.stderr
    init = json.loads(run.stdout.splitlines()[0])
    assert "example-skills:brand-guidelines" in init["skills"]
    assert [p["name"] for p in init["plugins"]] == ["example-skills"]
    skill_tool = next(t for t in fake_llm.requests[0].body["tools"] if t["name"] == "Skill")
    assert "example-skills:internal-comms" in skill_tool["description"]
    result = json.dumps(fake_llm.requests[1].body["messages"][-1])
    assert "When to use this skill" in result
    assert f"Uninstalled {REF}" in _ok(["plugin", "uninstall", REF], proj)
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose"], proj, env)
    assert json.loads(run.stdout.splitlines()[0])["skills"] == []


def test_a_changed_plugin_runs_as_pinned_until_the_update_is_accepted(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    market = marketplace(tmp_path / "market")
    _ok(["plugin", "marketplace", "add", str(market)], proj)
    _ok(["plugin", "install", REF], proj)
    skill_md = market / "skills/brand-guidelines/SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("# Anthropic Brand Styling", "# Changed upstream"))
    (market / "skills/brand-guidelines/new.md").write_text("new file")
    env = {**provider_env(fake_llm, ANTHROPIC), "HOME": str(tmp_path / "home")}
    fake_llm.push(Reply(text="a"), Reply(text="b"))
    agentcli(["-p", "/example-skills:brand-guidelines go", "--model", ANTHROPIC], proj, env)
    assert "Anthropic Brand Styling" in json.dumps(fake_llm.requests[0].body["messages"])
    shown = _ok(["plugin", "update", REF], proj)
    assert "~ skills/brand-guidelines/SKILL.md" in shown and "+ skills/brand-guidelines/new.md" in shown
    assert "Not applied" in shown
    agentcli(["-p", "/example-skills:brand-guidelines go", "--model", ANTHROPIC], proj, env)
    assert "Changed upstream" not in json.dumps(fake_llm.requests[1].body["messages"])
    assert "Updated" in _ok(["plugin", "update", REF, "--yes"], proj)
    fake_llm.push(Reply(text="c"))
    agentcli(["-p", "/example-skills:brand-guidelines go", "--model", ANTHROPIC], proj, env)
    assert "Changed upstream" in json.dumps(fake_llm.requests[2].body["messages"])


def test_a_tampered_pinned_copy_is_not_loaded(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    _ok(["plugin", "marketplace", "add", str(marketplace(tmp_path / "market"))], proj)
    _ok(["plugin", "install", REF], proj)
    row = json.loads(_ok(["plugin", "list", "--json"], proj))[0]
    assert row["version"] and row["pinned"]
    pinned = next((Path(os.environ["AGENTCLI_HOME"]) / "plugins/installed" / REF).iterdir())
    (pinned / "skills/brand-guidelines/SKILL.md").write_text("---\nname: brand-guidelines\ndescription: x\n---\nevil")
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose"], proj,
                   {**provider_env(fake_llm, ANTHROPIC), "HOME": str(tmp_path / "home")})
    assert json.loads(run.stdout.splitlines()[0])["skills"] == []
    assert "pinned copy changed since install" in run.stdout + run.stderr


def test_bad_references_are_clear_errors(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    run = agentcli(["plugin", "install", "../../x@nowhere"], proj)
    assert run.status == 2 and "is not NAME@MARKETPLACE" in run.stderr
    run = agentcli(["plugin", "install", "nothing@nowhere"], proj)
    assert run.status == 2 and "no marketplace named 'nowhere'" in run.stderr and "[config]" in run.stderr
    run = agentcli(["plugin", "marketplace", "add", str(tmp_path)], proj)
    assert run.status == 2 and "has no .claude-plugin/marketplace.json" in run.stderr
    _ok(["plugin", "marketplace", "add", str(marketplace(tmp_path / "m"))], proj)
    run = agentcli(["plugin", "install", "nope@anthropic-agent-skills"], proj)
    assert run.status == 2 and "it has: example-skills" in run.stderr


def test_a_git_marketplace_update_is_seen_after_a_commit(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    market = marketplace(tmp_path / "market", git=True)
    _ok(["plugin", "marketplace", "add", f"file://{market}"], proj)
    _ok(["plugin", "install", REF], proj)
    assert "is up to date" in _ok(["plugin", "update", REF], proj)
    (market / "skills/internal-comms/examples/general-comms.md").write_text("rewritten")
    commit(market, "change")
    assert "~ skills/internal-comms/examples/general-comms.md" in _ok(["plugin", "update", REF], proj)
