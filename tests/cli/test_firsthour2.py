"""Issue 28 (the first hour, second pass), headless side: the real `agentcli -p` against the fake LLM server."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import OPENAI, agentcli, provider_env
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
