"""Issue 28 (the first hour, second pass), REPL side: the real `agentcli` in a pseudo-terminal against the fake
LLM server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentcli.ui.render import SLOW_PROMPT_S
from tests.cli.test_firsthour import llama_routes
from tests.fakes import FakeLLM, Fault, Reply
from tests.ui.ptyterm import Term, child_env
from tests.ui.test_pty_firsthour import local_env

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


def test_the_spinner_waits_for_the_model_before_its_first_byte(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    """Before a reply's first byte the spinner says it waits for the model (not "Thinking", which needs thinking
    deltas), with how long it has waited."""
    fake_llm.push(Reply(text="Late answer.", fault=Fault("slow_first_byte", delay_s=60)))
    t = start(terms, project, fake_llm)
    t.line("hello")
    t.expect("Waiting for the model… ")
    fake_llm.first_byte_released.set()
    t.expect("Late answer.")
    assert "Thinking…" not in t.out


def test_a_slow_local_server_is_evaluating_the_prompt(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """A llama.cpp server silent for seconds (a long prompt on a CPU): the spinner says what it is doing."""
    llama_routes(fake_llm)
    fake_llm.push(Reply(text="Evaluated.", fault=Fault("slow_first_byte", delay_s=SLOW_PROMPT_S + 60)))
    t = Term(["--base-url", fake_llm.openai_url], project, local_env())
    terms.append(t)
    t.prompt()
    t.line("a long prompt")
    t.expect("Waiting for the model… evaluating the prompt ", timeout=SLOW_PROMPT_S + 20)
    fake_llm.first_byte_released.set()  # the server answers once the spinner has said it
    t.expect("Evaluated.")
    assert "Thinking…" not in t.out

