"""Issue 28, REPL side: the first start with nothing configured, and resuming before any provider is known.
The real `agentcli` in a pseudo-terminal, against the fake LLM server."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.assembly.firstrun import LOCAL_SERVERS
from tests.cli.test_firsthour import llama_routes
from tests.fakes import FakeLLM, Reply
from tests.ui.ptyterm import AGENTCLI, Term
from tests.ui.test_pty_firsthour import local_env, spawn

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def on_a_usual_port() -> Iterator[FakeLLM]:
    """The fake server on the first free one of the usual local ports (vLLM's, LM Studio's, llama.cpp's,
    Ollama's), answering as llama.cpp does. None free is a failure: something else would answer the probe."""
    fake = FakeLLM()
    for port in sorted(p for _, _, p, _ in LOCAL_SERVERS):
        with contextlib.suppress(OSError):
            fake.start(port)
            break
    else:
        pytest.fail(f"every usual local port is taken: {[p for _, _, p, _ in LOCAL_SERVERS]}")
    try:
        yield fake
    finally:
        fake.stop()


def test_first_start_offers_the_local_server_and_answers(project: Path, on_a_usual_port: FakeLLM,
                                                         terms: list[Term]) -> None:
    """Acceptance 1: `agentcli` in a fresh AGENTCLI_HOME, a local server on a usual port: offered, taken,
    saved, and the first prompt is answered; the next start asks nothing."""
    fake = on_a_usual_port
    llama_routes(fake)
    fake.push(Reply(text="Hello from the local server."), Reply(text="Second start."))
    env = local_env()
    t = spawn(terms, project, env)
    t.expect(f"llama.cpp server at {fake.openai_url}, serving {GGUF}")
    t.expect("Use it? [Y/n]")
    t.line("")
    t.prompt()
    t.line("hi")
    t.expect("Hello from the local server.")
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0
    config = Path(env["AGENTCLI_HOME"]) / "config.toml"
    assert fake.openai_url in config.read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    again = spawn(terms, project, env)
    again.prompt()
    again.line("again")
    again.expect("Second start.")
    assert "Use it?" not in again.out


def test_first_start_takes_a_hosted_key_without_echoing_it(project: Path, terms: list[Term]) -> None:
    env = local_env()
    t = spawn(terms, project, env)
    t.expect("Which provider do you want to use?")
    t.expect("Enter to quit")
    t.line("1")
    t.expect("not shown")
    t.line("sk-ant-first-run-secret-0000")
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0
    assert "sk-ant-first-run-secret" not in t.out
    config = Path(env["AGENTCLI_HOME"]) / "config.toml"
    assert 'api_key = "sk-ant-first-run-secret-0000"' in config.read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


def test_headless_with_nothing_configured_still_explains_and_exits_2(project: Path) -> None:
    run = subprocess.run([AGENTCLI, "-p", "hi"], cwd=project, env=local_env(), capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert run.returncode == 2 and "No model provider is configured" in run.stderr


@pytest.mark.parametrize(("args", "said"), [
    (["--resume", "nosuchsession"], "no session"),
    (["-c"], "no session to continue"),
])
def test_resume_of_nothing_says_so_before_asking_for_a_provider(project: Path, args: list[str], said: str) -> None:
    run = subprocess.run([AGENTCLI, *args], cwd=project, env=local_env(), capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert run.returncode != 0
    assert said in run.stderr and "No model provider" not in run.stderr, run.stderr


def test_resume_picker_comes_before_the_provider(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """`agentcli -r` with nothing configured: the picker, then the picked session's own server and model."""
    fake_llm.push(Reply(text="first"), Reply(text="picked and answered"))
    env = {**local_env(), "AGENTCLI_HOME": os.environ["AGENTCLI_HOME"]}
    first = subprocess.run([AGENTCLI, "-p", "remember pelican", "--base-url", fake_llm.openai_url], cwd=project,
                           env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert first.returncode == 0, first.stderr
    t = spawn(terms, project, env, "-r")
    t.expect("remember pelican")
    t.send("\r")
    t.prompt()
    t.line("what word?")
    t.expect("picked and answered")
    assert "No model provider" not in t.out


def test_rewind_lists_what_was_typed(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """`/rewind` listed the text agentcli adds for the model ("Contents of a.txt (attached with @):", "The user
    ran a shell command…") and named the session and record by id; it lists and names what was typed."""
    from tests.ui.test_pty_firsthour import start

    fake_llm.push(Reply(text="Hello."), Reply(text="Seen."))
    t = start(terms, project, fake_llm)
    t.line("hello")
    t.expect("Hello.")
    t.prompt()
    t.line("!echo shell-said-this")
    t.expect("shell-said-this")
    t.prompt()
    t.line("look at @a.txt please")
    t.expect("Seen.")
    t.prompt()
    t.line("/rewind")
    listing = t.expect("Rewind with /rewind N")
    assert "2  look at @a.txt please" in listing
    assert "attached with @" not in listing and "ran a shell command" not in listing
    t.prompt()
    t.line("/rewind 2 chat")
    shown = t.expect("[y/N]")
    assert "Rewind to before prompt 2: look at @a.txt please" in shown and "to record" not in shown
    t.line("n")
    t.expect("Rewind cancelled")


def test_the_status_line_names_the_served_model_and_counts_the_tools_before_any_prompt(
        project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """Issue 28: until the first request the status line named the server's URL and said "ctx 0", while the
    tool definitions already filled a large part of an 8k window."""
    llama_routes(fake_llm)
    t = spawn(terms, project, local_env(), "--base-url", fake_llm.openai_url)
    t.prompt()
    assert "ctx 0" in t.expect("ctx 0")  # before the background build: nothing known yet
    # (prompt_toolkit redraws only the cells that change, so the new status is matched by what is new in it:
    # a percentage, which needs the served model's window, and the model's own name)
    t.expect("Q4_1")
    t.expect(r"[1-9]\d*%", regex=True)
    # no model call: what the server serves and its window are metadata
    assert [r.path for r in fake_llm.requests if r.path.endswith("/chat/completions")] == []


def test_an_edit_bound_to_fail_is_not_asked_about_and_an_at_file_counts_as_read(
        project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """Issue 28: Edit showed its diff, the person said yes, and only then it failed with "has not been read
    yet"; and a file attached with `@` did not count as read."""
    from tests.fakes import ToolCall
    from tests.ui.test_pty_firsthour import start

    edit = {"file_path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}
    fake_llm.push(Reply(text="Editing.", tool_calls=[ToolCall("Edit", edit)]), Reply(text="Could not."),
                  Reply(text="Editing again.", tool_calls=[ToolCall("Edit", edit)]), Reply(text="Done."))
    t = start(terms, project, fake_llm)
    t.line("change alpha")
    t.expect("Could not.")
    t.prompt()
    assert "Allow Edit?" not in t.out
    assert "has not been read yet" in json.dumps(fake_llm.requests[1].body)
    t.line("now change alpha in @a.txt")
    t.expect("Allow Edit?")
    t.expect("choice [1-")
    t.send("1")
    t.expect("Done.")
    assert (project / "a.txt").read_text() == "ALPHA\nbeta\n"


def test_the_repls_default_mode_is_auto_and_p_keeps_default(project: Path, fake_llm: FakeLLM,
                                                             terms: list[Term]) -> None:
    """Issue 27: `auto` is the REPL's default once the undo holds: a command the kernel sandbox confines runs
    without a question; `-p` keeps Claude Code's default (the same command is denied, nobody to ask)."""
    from tests.fakes import ToolCall
    from tests.ui.ptyterm import child_env

    fake_llm.push(Reply(text="Making it.", tool_calls=[ToolCall("Bash", {"command": "touch made-in-repl.txt"})]),
                  Reply(text="Made."))
    t = Term(["--model", "openai/fake-model"], project, child_env(fake_llm.openai_url), repl_default=True)
    terms.append(t)
    t.prompt()
    t.line("make a file")
    t.expect("Made.")
    assert "Allow Bash?" not in t.out and (project / "made-in-repl.txt").exists()
    t.line("/mode")
    t.expect("Permission mode: auto")
    fake_llm.push(Reply(text="Making it.", tool_calls=[ToolCall("Bash", {"command": "touch made-in-p.txt"})]),
                  Reply(text="Denied."))
    run = subprocess.run([AGENTCLI, "-p", "make a file", "--model", "openai/fake-model", "--output-format", "json"],
                         cwd=project, env=child_env(fake_llm.openai_url), capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert json.loads(run.stdout)["permission_denials"] and not (project / "made-in-p.txt").exists()
