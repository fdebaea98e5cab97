"""Issue 26, acceptance 5: a stream cut in the middle of a reply is retried like any other transient error (the
loop appends nothing and runs no tool until a stream completes; the front ends drop a discarded attempt), while a
connection closed before any response byte still is not resent on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.core.events import ApiRetry, TextDelta
from agentcli.providers.base import ProviderConfig
from agentcli.providers.factory import make_provider
from tests.cli.helpers import ANTHROPIC, OPENAI, agentcli, provider_env
from tests.fakes import FakeLLM, Fault, Reply
from tests.providers.helpers import collect, request

FAST = {"retry_base_delay_s": 0.001, "retry_max_delay_s": 0.01}


@pytest.mark.parametrize("name", ["anthropic", "openai"])
def test_a_cut_stream_is_retried_and_the_new_reply_replaces_it(fake_llm: FakeLLM, name: str) -> None:
    fake_llm.push(Reply(text="abcdefghijklmnop", chunk_size=2, fault=Fault("drop_mid", after_events=3)),
                  Reply(text="the whole answer"))
    base = fake_llm.url if name == "anthropic" else fake_llm.openai_url
    p = make_provider(ProviderConfig(name, base_url=base, api_key="k", max_retries=2, **FAST))
    events = collect(p, request())
    retries = [e for e in events if isinstance(e, ApiRetry)]
    assert len(retries) == 1 and retries[0].error_code == "unavailable"
    after = events[events.index(retries[0]):]
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) == "the whole answer"
    assert len(fake_llm.requests) == 2


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_p_json_run_survives_a_cut_after_three_events(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    fake_llm.push(Reply(text="partial words that never finish", chunk_size=3,
                        fault=Fault("drop_mid", after_events=3)),
                  Reply(text="Done: the answer."))
    run = agentcli(["-p", "hi", "--model", model, "--output-format", "json"], tmp_path,
                   provider_env(fake_llm, model))
    assert run.status == 0, run.stderr
    result = run.json()
    assert result["subtype"] == "success" and result["result"] == "Done: the answer."
    assert len(fake_llm.requests) == 2
