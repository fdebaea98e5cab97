"""Issue 28 (the first hour, second pass), REPL side: the real `agentcli` in a pseudo-terminal against the fake
LLM server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fakes import FakeLLM, Reply
from tests.ui.ptyterm import Term, child_env

MODEL = ["--model", "openai/fake-model"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('the app body')\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def start(terms: list[Term], project: Path, fake: FakeLLM, *args: str, **env: str) -> Term:
    t = Term([*MODEL, *args], project, child_env(fake.openai_url, **env))
    terms.append(t)
    t.prompt()
    return t


def test_tab_accepts_the_at_completion_and_closes_the_popup(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    """Tab takes the highlighted `@path` and the popup closes, so the next Enter sends the prompt (with the popup
    still open, Enter would only re-apply the completion)."""
    fake_llm.push(Reply(text="Seen it."))
    t = start(terms, project, fake_llm)
    t.send("explain @src/ap")
    t.expect("src/app.py")
    t.send("\t")
    t.send("\r")
    t.expect("Seen it.")
    body = str(fake_llm.requests[0].body)
    assert "the app body" in body


def test_an_empty_reply_says_so(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """A reply with no text and no tool calls is shown as such, not as nothing at all."""
    fake_llm.push(Reply(text=""), Reply(text="Second reply."))
    t = start(terms, project, fake_llm)
    t.line("say nothing")
    t.expect("(the model returned an empty reply)")
    t.prompt()
    t.line("say something")
    t.expect("Second reply.")
    assert t.out.count("(the model returned an empty reply)") == 1
