"""The `agentcli()` test helper: a run that outlives its timeout fails the test with its threads' stacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import ANTHROPIC, Hung, agentcli, provider_env
from tests.fakes.script import Fault, Reply
from tests.fakes.server import FakeLLM


def test_a_run_past_its_timeout_shows_where_it_waits(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))  # released at the fixture's end
    # 1.5 s: long after the child's interpreter has set up faulthandler (milliseconds), wherever the run then is
    with pytest.raises(Hung) as hung:
        agentcli(["-p", "hi", "--model", ANTHROPIC], tmp_path, provider_env(fake_llm, ANTHROPIC), timeout=1.5)
    assert "Fatal Python error: Aborted" in hung.value.stderr and "(most recent call first)" in str(hung.value)
    assert "timed out after 1.5 seconds" in str(hung.value)
