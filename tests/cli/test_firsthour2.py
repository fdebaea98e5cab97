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
