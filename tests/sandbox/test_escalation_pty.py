"""Acceptance 4 of issue 9: in the REPL (a real pty), a command the sandbox stopped is offered again outside
the sandbox through the approval prompt; accepting runs it once, unconfined; declining leaves it denied."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term, child_env


@pytest.fixture
def outside() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="agentcli-outside-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _repl(project: Path, fake: FakeLLM, terms: list[Term]) -> Term:
    t = Term(["--model", "openai/fake-model", "--permission-mode", "bypassPermissions"], project,
             child_env(fake.openai_url))
    terms.append(t)
    t.prompt()
    return t


@pytest.fixture
def terms() -> Iterator[list[Term]]:
    made: list[Term] = []
    yield made
    for t in made:
        t.close()


def test_accepting_the_offer_runs_the_command_once_outside(
    project: Path, outside: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    command = f"touch {outside}/made && echo wrote-it"
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": command})]), Reply(text="Finished."),
                  Reply(tool_calls=[ToolCall("Bash", {"command": f"touch {outside}/again"})]), Reply(text="Done."))
    t = _repl(project, fake_llm, terms)
    t.line("write outside")
    shown = t.expect("choice [1-")
    assert "sandbox stopped it" in shown and "Read-only file system" in shown and command in shown
    t.send("1")  # one key, no Enter
    t.expect("Finished.")
    t.prompt()
    assert (outside / "made").exists()
    result = json.dumps(fake_llm.requests[1].body["messages"][-1])
    assert "outside the sandbox" in result and "wrote-it" in result
    # Once means once: the next command outside is stopped and offered again.
    t.line("again")
    t.expect("choice [1-")
    t.send("3")  # one key, no Enter
    t.expect("why")
    t.line("")
    t.expect("Done.")
    assert not (outside / "again").exists()


def test_bang_commands_run_in_the_sandbox_without_keys(
    project: Path, outside: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    (project / ".env").write_text("TOKEN=bang-marker\n")
    t = _repl(project, fake_llm, terms)
    t.line(f"!printenv OPENAI_API_KEY; echo key-rc=$?; cat .env; touch {outside}/bang; echo done-$((40+2))")
    t.expect("done-42")
    t.prompt()
    assert "key-rc=1" in t.out and "sk-fake-key-for-tests" not in t.out and "bang-marker" not in t.out
    assert not (outside / "bang").exists()


def test_remembering_for_this_project_saves_it_and_stops_asking(
    project: Path, outside: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    command = f"touch {outside}/made"
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": command})]), Reply(text="First."),
                  Reply(tool_calls=[ToolCall("Bash", {"command": f"rm {outside}/made && {command}2"})]),
                  Reply(text="Second."),
                  Reply(tool_calls=[ToolCall("Bash", {"command": command})]), Reply(text="Third."))
    t = _repl(project, fake_llm, terms)
    t.line("first")
    t.expect("choice [1-")
    t.send("2")  # one key: yes, and remember…
    t.expect("Remember which rule?")
    t.expect("choice [1-")
    t.send("1")  # one key: the exact command
    t.expect("For how long?")
    t.expect("choice [1-")
    t.send("2")  # one key: this project
    t.expect("First.")
    t.prompt()
    saved = (project / ".agentcli" / "settings.local.toml").read_text()
    assert "[sandbox]" in saved and command in saved
    t.line("second")  # another command outside: asked again, declined
    t.expect("choice [1-")
    t.send("3")  # one key, no Enter
    t.expect("why")
    t.line("")
    t.expect("Second.")
    t.prompt()
    (outside / "made").unlink()
    t.line("third")  # the remembered one: runs outside the sandbox without asking
    t.expect("Third.")
    assert (outside / "made").exists() and t.out.count("Remember which rule?") == 1
