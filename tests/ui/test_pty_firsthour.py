"""Issue 11 (the first hour), REPL side: the real `agentcli` in a pseudo-terminal against the fake LLM server."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.fakes import FakeLLM, Reply, ToolCall, Usage
from tests.ui.ptyterm import AGENTCLI, Term, child_env

MODEL = ["--model", "openai/fake-model"]


def spawn(terms: list[Term], project: Path, env: dict[str, str], *args: str) -> Term:
    t = Term(list(args), project, env)
    terms.append(t)
    return t


def start(terms: list[Term], project: Path, fake: FakeLLM, *args: str, **env: str) -> Term:
    t = spawn(terms, project, child_env(fake.openai_url, **env), *MODEL, *args)
    t.prompt()
    return t


def local_env() -> dict[str, str]:
    """A user with nothing configured but a local server: no keys, no base URL in the environment."""
    env = child_env("")
    for k in list(env):
        if k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "OLLAMA_")) or k == "AGENTCLI_HOST":
            del env[k]
    return env


def user_texts(fake: FakeLLM, i: int = -1) -> list[str]:
    out = []
    for m in fake.requests[i].body["messages"]:
        if m["role"] == "user":
            c = m["content"]
            out.append(c if isinstance(c, str) else "".join(p.get("text", "") for p in c))
    return out


def test_typeahead_before_the_prompt_is_submitted(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """Acceptance 2: a prompt typed (with Enter) right after `agentcli`, before the prompt is drawn, is sent."""
    fake_llm.push(Reply(text="Typed-ahead answer."))
    t = spawn(terms, project, child_env(fake_llm.openai_url), *MODEL)
    t.send("hello from typeahead\r")  # at once: the process has not drawn anything yet
    t.expect("Typed-ahead answer.")
    t.prompt()
    assert len(fake_llm.requests) == 1
    assert user_texts(fake_llm)[-1] == "hello from typeahead"


def test_local_session_resumes_with_no_flags(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    """Acceptance 3: started with --base-url only; `-r ID` and `-c` reconnect to the same server and model."""
    fake_llm.push(Reply(text="First local reply."), Reply(text="Resumed by id."), Reply(text="Continued."))
    env = local_env()
    t = spawn(terms, project, env, "--base-url", fake_llm.openai_url)
    t.prompt()
    assert f"(the model at {fake_llm.openai_url})" in t.out  # not "(default model)" before the server is asked
    t.line("remember pelican")
    t.expect("First local reply.")
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0
    found = re.search(r"agentcli --resume ([0-9a-f-]{36})", t.out)
    assert found, t.out[-800:]
    model = fake_llm.requests[0].body["model"]

    r = spawn(terms, project, env, "--resume", found.group(1))
    r.expect(f"Resumed session {found.group(1)}")
    r.prompt()
    r.line("what word?")
    r.expect("Resumed by id.")
    r.prompt()
    r.send("\x04")
    assert r.wait_exit() == 0
    assert "pelican" in json.dumps(fake_llm.requests[1].body["messages"])

    c = spawn(terms, project, env, "-c")
    c.expect(f"Resumed session {found.group(1)}")
    c.prompt()
    c.line("and again")
    c.expect("Continued.")
    assert [q.body["model"] for q in fake_llm.requests] == [model] * 3
    session = next((Path(env["AGENTCLI_HOME"]) / "projects").glob(f"*/{found.group(1)}.jsonl"))
    assert "sk-" not in session.read_text()


def test_local_session_resumes_headless_with_no_flags(project: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="one"), Reply(text="two"))
    env = {**local_env(), "AGENTCLI_HOME": os.environ["AGENTCLI_HOME"]}
    first = subprocess.run([AGENTCLI, "-p", "hi", "--base-url", fake_llm.openai_url], cwd=project, env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([AGENTCLI, "-p", "again", "-c"], cwd=project, env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "two"
    assert "hi" in user_texts(fake_llm)


def test_edit_approval_shows_the_diff_of_the_file(tmp_path: Path) -> None:
    from tests.permissions.test_approval_pty import drive

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "m.py").write_text("one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
    req = {"tool": "Edit", "input": {"file_path": "m.py", "old_string": "six", "new_string": "SIX"}}
    _, shown = drive(root, req, [("choice", "1")])
    assert "@@ -3,5 +3,5 @@" in shown  # the real line numbers, with the file's context around
    assert "-six" in shown and "+SIX" in shown and " five" in shown and " seven" in shown
    assert "No newline" not in shown


@pytest.mark.parametrize("key", ["\x1b", "\x03"])
def test_escape_or_ctrl_c_at_the_approval_prompt_stops_the_turn(
    project: Path, fake_llm: FakeLLM, terms: list[Term], key: str
) -> None:
    fake_llm.push(
        Reply(text="Let me run it.", tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]),
        Reply(text="Next turn answer."),
    )
    t = start(terms, project, fake_llm)
    t.line("make a file")
    t.expect("Allow Bash?")
    t.expect("choice [1-")
    t.send(key)
    t.expect("Interrupted")
    t.prompt()
    assert len(fake_llm.requests) == 1 and not (project / "made.txt").exists()
    t.line("next")
    t.expect("Next turn answer.")
    assert len(fake_llm.requests) == 2 and user_texts(fake_llm)[-1] == "next"


def test_approval_choice_takes_one_key(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    fake_llm.push(
        Reply(text="Running.", tool_calls=[ToolCall("Bash", {"command": "touch made.txt && echo one-key-ran"})]),
        Reply(text="Done."),
    )
    t = start(terms, project, fake_llm)
    t.line("make a file")
    t.expect("choice [1-")
    t.send("1")  # no Enter
    t.expect("Done.")
    assert (project / "made.txt").exists()


def cost_tokens(shown: str) -> tuple[int, int]:
    found = re.search(r"Tokens: ([\d,]+) in · ([\d,]+) out", shown)
    assert found, shown[-600:]
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


def test_escape_mid_stream_still_counts_usage_also_after_continue(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    words = tuple(f"word{i} " for i in range(100_000))
    fake_llm.push(Reply(pieces=words))
    t = start(terms, project, fake_llm)
    t.line("write a lot")
    t.expect("word5")
    t.send("\x1b")
    t.expect("Interrupted")
    t.prompt()
    t.line("/cost")
    tokens_in, tokens_out = cost_tokens(t.expect("out ·"))
    assert tokens_in > 0 and tokens_out > 0
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0
    c = start(terms, project, fake_llm, "-c")
    c.expect("Resumed session")
    c.prompt()
    c.line("/cost")
    assert cost_tokens(c.expect("out ·")) == (tokens_in, tokens_out)


def test_context_uses_the_probed_window_and_agrees_with_the_status_line(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    fake_llm.get_routes["/v1/models"] = {"data": [{"id": "served-model"}]}
    fake_llm.get_routes["/props"] = {"default_generation_settings": {"n_ctx": 8192}}
    fake_llm.push(Reply(text="short answer", usage=Usage(input_tokens=4096)))
    env = local_env()
    t = spawn(terms, project, env, "--base-url", fake_llm.openai_url)
    t.prompt()
    t.line("hi")
    t.expect("short answer")
    t.prompt()
    t.line("/context")
    shown = t.expect("compacts at")
    assert "of 8,192 tokens (50%)" in shown, shown[-800:]  # /context's "used" line (issue 12's format)
    assert "ctx 50%" in t.expect("ctx 50%")  # the status line says the same
    assert fake_llm.requests[-1].body["model"] == "served-model"


def test_model_switch_without_a_key_is_refused_and_hints_name_the_real_home(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    fake_llm.push(Reply(text="still on the fake"))
    t = start(terms, project, fake_llm)
    t.line("/model anthropic/claude-sonnet-4-5")
    shown = t.expect("[auth]")
    assert "ANTHROPIC_API_KEY is not set" in shown and "Model set" not in shown
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[\r\n]", "", shown)
    assert str(Path(os.environ["AGENTCLI_HOME"]) / "config.toml") in plain
    t.prompt()
    t.line("/model")
    t.expect(r"Model: (openai/)?fake-model", regex=True)
    t.line("hello")
    t.expect("still on the fake")
    assert fake_llm.requests[-1].body["model"] == "fake-model"


def test_continue_replays_shell_attachments_and_edited_calls_as_seen(
    project: Path, fake_llm: FakeLLM, terms: list[Term]
) -> None:
    fake_llm.push(
        Reply(text="Read both."),
        Reply(text="Running.", tool_calls=[ToolCall("Bash", {"command": "touch original-cmd"})]),
        Reply(text="Ran it."),
    )
    t = start(terms, project, fake_llm)
    t.line("!echo shell-out-xyz")
    t.expect("shell-out-xyz")
    t.prompt()
    t.line("look at @a.txt")
    t.expect("Read both.")
    t.prompt()
    t.line("run something")
    t.expect("choice [1-")
    t.send("4")  # edit, then run
    t.expect("edit")
    t.send("\x15touch edited-cmd\r")
    t.expect("Ran it.")
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0

    c = start(terms, project, fake_llm, "-c")
    c.expect("Resumed session")
    shown = c.out
    assert "$ echo shell-out-xyz" in shown and "look at @a.txt" in shown
    assert "The user ran a shell command" not in shown and "attached with @" not in shown
    assert "touch edited-cmd" in shown and "original-cmd" not in shown
    assert (project / "edited-cmd").exists()


def test_a_session_left_without_a_prompt_is_not_kept(project: Path, fake_llm: FakeLLM, terms: list[Term]) -> None:
    t = start(terms, project, fake_llm)
    t.line("/tools")  # a command, not a prompt; it waits for the agent (and its session) to be built
    t.expect("Tools:")
    t.prompt()
    t.send("\x04")
    assert t.wait_exit() == 0
    assert not list((Path(os.environ["AGENTCLI_HOME"]) / "projects").glob("*/*.jsonl"))
    listed = subprocess.run([AGENTCLI, "sessions", "list"], cwd=project, capture_output=True, text=True,
                            env={**os.environ}, timeout=30)
    assert "no sessions" in listed.stdout
