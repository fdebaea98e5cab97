"""Issue 28 (the first hour, second pass), headless side: the real `agentcli -p` against the fake LLM server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import OPENAI, agentcli, provider_env
from tests.cli.test_firsthour import llama_routes, local_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM


def test_p_text_says_when_the_reply_is_empty(tmp_path: Path) -> None:
    with FakeLLM([Reply(text="")]).start() as fake:
        run = agentcli(["-p", "say nothing", "--model", OPENAI], tmp_path, provider_env(fake, OPENAI))
    assert run.status == 0, run.stderr
    assert run.stdout == ""  # the answer stays what the model said: nothing
    assert "agentcli: (the model returned an empty reply)" in run.stderr


def test_p_text_is_quiet_about_a_reply_with_text(tmp_path: Path) -> None:
    with FakeLLM([Reply(text="Hello.")]).start() as fake:
        run = agentcli(["-p", "hi", "--model", OPENAI], tmp_path, provider_env(fake, OPENAI))
    assert run.status == 0, run.stderr
    assert run.stdout == "Hello.\n" and "empty reply" not in run.stderr


def test_sessions_name_the_provider_as_the_init_line_does(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """A run against llama.cpp by `--base-url`: the init line says "llamacpp"; so do `sessions list --json`,
    `sessions show` and the Markdown export (the header keeps "openai" as the reconnect key for `-r`)."""
    llama_routes(fake_llm)
    fake_llm.push(Reply(text="hi there"), Reply(text="resumed"))
    env = local_env(fake_llm)
    run = agentcli(["-p", "hello", "--base-url", fake_llm.openai_url, "--output-format", "stream-json",
                    "--verbose"], tmp_path, env)
    assert run.status == 0, run.stderr
    init = run.lines()[0]
    assert init["provider"] == "llamacpp"
    listed = json.loads(agentcli(["sessions", "list", "--json"], tmp_path, env).stdout)
    assert [s["provider"] for s in listed] == ["llamacpp"]
    sid = init["session_id"]
    assert "- model: llamacpp/SmolLM2-135M-Instruct.Q4_1.gguf" in agentcli(["sessions", "export", sid], tmp_path,
                                                                           env).stdout
    assert f"session {sid}  llamacpp/" in agentcli(["sessions", "show", sid], tmp_path, env).stdout
    exported = json.loads(agentcli(["sessions", "export", sid, "json"], tmp_path, env).stdout)
    assert exported["provider"] == "llamacpp" and exported["session"]["provider_label"] == "llamacpp"
    again = agentcli(["-p", "more", "-r", sid, "--output-format", "stream-json", "--verbose"], tmp_path, env)
    assert again.status == 0, again.stderr  # still reconnects by the stored key and URL
    assert again.lines()[0]["provider"] == "llamacpp"


def _llama(fake: FakeLLM, n_ctx: int | None) -> None:
    llama_routes(fake)
    props = dict(fake.get_routes["/props"])
    if n_ctx is None:
        del props["default_generation_settings"]
    else:
        props["default_generation_settings"] = {"n_ctx": n_ctx}
    fake.get_routes["/props"] = props


def test_p_refuses_a_prompt_known_to_overflow_the_local_window(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """llama.cpp says its window is 2048 tokens: a ~6,000-token prompt is refused before it is sent, naming
    the server as the session does, with what a headless user can do (no /clear under -p)."""
    _llama(fake_llm, 2048)
    fake_llm.push(Reply(text="never asked"))
    prompt = "word " * 6000
    run = agentcli(["-p", prompt, "--base-url", fake_llm.openai_url], tmp_path, local_env(fake_llm))
    assert run.status != 0
    assert [r for r in fake_llm.requests if r.path.endswith("/chat/completions")] == []
    assert "[context_overflow]" in run.stderr and "2,048 tokens" in run.stderr and "llamacpp" in run.stderr
    assert "/clear" not in run.stderr and "--max-turns" in run.stderr and "llama-server -c" in run.stderr


def test_p_too_long_error_names_the_real_server(tmp_path: Path) -> None:
    """The window is not known ahead (no n_ctx in /props): the server's own "too long" answer is reported as
    llamacpp's, not "OpenAI"'s, and suggests no /clear under -p."""
    with FakeLLM([Reply(text="never")], max_input_tokens=1000).start() as fake:
        _llama(fake, None)
        run = agentcli(["-p", "word " * 3000, "--base-url", fake.openai_url], tmp_path, local_env(fake))
    assert run.status != 0
    assert "[context_overflow]" in run.stderr and "llamacpp returned HTTP 400" in run.stderr, run.stderr
    assert "OpenAI" not in run.stderr and "/clear" not in run.stderr
