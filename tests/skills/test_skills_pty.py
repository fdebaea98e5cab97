"""`/skills` and `/skill-name` in the real REPL, in a pseudo-terminal, against the fake LLM."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.fakes import FakeLLM, Reply
from tests.skills.helpers import place
from tests.ui.ptyterm import Term, child_env


def test_skills_lists_sources_and_slash_name_runs_one(tmp_path: Path, fake_llm: FakeLLM) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    home = tmp_path / "home"
    place(home / ".claude/skills", "brand-guidelines")
    place(project / ".claude/skills", "internal-comms")
    fake_llm.push(Reply(text="styled it"))
    term = Term(["--model", "openai/fake-model"], project, child_env(fake_llm.openai_url, HOME=str(home)))
    try:
        term.prompt()
        term.line("/skills")
        shown = term.expect("not trusted")
        assert "~/.claude/skills (user): 1 skill" in shown and "/brand-guidelines (~/.claude/skills)" in shown
        assert "internal-comms" in shown  # named as withheld, not offered
        term.prompt()
        term.line("/brand-guidelines the home page")
        term.expect("styled it")
        sent = json.dumps(fake_llm.requests[0].body["messages"])
        assert "Anthropic Brand Styling" in sent and "ARGUMENTS: the home page" in sent
        term.prompt()
        term.line("/skills trust")
        term.expect("trusted as they are now")
    finally:
        term.close()


def test_plugin_in_the_repl_installs_lists_and_skills_shows_it(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from tests.plugins.helpers import marketplace

    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    market = marketplace(tmp_path / "market")
    term = Term(["--model", "openai/fake-model"], project,
                child_env(fake_llm.openai_url, HOME=str(tmp_path / "home")))
    try:
        term.prompt()
        term.line(f"/plugin marketplace add {market}")
        term.expect("Added marketplace anthropic-agent-skills")
        term.line("/plugin install example-skills@anthropic-agent-skills")
        term.expect("Install: example-skills@anthropic-agent-skills")
        term.line("/plugin list")
        term.expect("enabled, untrusted")
        term.expect("source ")
        term.line("/skills")
        shown = term.expect("example-skills:webapp-testing")
        assert "plugin example-skills@anthropic-agent-skills ?, untrusted (plugin)" in shown
    finally:
        term.close()
