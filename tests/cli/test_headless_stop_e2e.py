"""Issue 28: `agentcli -p` stopped by SIGINT after the model has replied reports what the run did (its turns and
time, not zeros) and, in text mode, still prints what the model had written. One place makes that result
(agentcli.driver.results.stopped_result)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sandbox.helpers import Ready, gone, marker_process

SAID = "Running the slow check now."


def _stopped_mid_tool(tmp_path: Path, fake_llm: FakeLLM, fmt: str) -> tuple[int, str, str]:
    """A reply with text and a long Bash call; SIGINT once the command runs."""
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    ready = Ready(proj / "ready.fifo")
    fake_llm.push(Reply(text=SAID, tool_calls=[ToolCall("Bash", {"command": marker_process(marker, 120,
                                                                                            ready.path)})]),
                  Reply(text="never asked for"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(provider_env(fake_llm, ANTHROPIC))
    proc = subprocess.Popen([sys.executable, "-m", "agentcli", "-p", "go", "--permission-mode", "bypassPermissions",
                             "--model", ANTHROPIC, "--output-format", fmt], cwd=proj, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert ready.wait(1), "the command did not start"
    finally:
        ready.close()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert gone(marker)
    return proc.returncode, out, err


def test_sigint_result_reports_the_turns_time_and_usage_so_far(tmp_path: Path, fake_llm: FakeLLM) -> None:
    status, out, err = _stopped_mid_tool(tmp_path, fake_llm, "json")
    result = json.loads(out)
    assert status == 130 and result["is_error"] and result["error"]["code"] == "interrupted", err
    assert result["num_turns"] == 1 and result["duration_ms"] > 0
    assert result["usage"]["output_tokens"] > 0 and result["total_cost_usd"] > 0
    assert "run stopped by SIGINT [interrupted]" in err


def test_sigint_in_text_mode_still_prints_what_the_model_wrote(tmp_path: Path, fake_llm: FakeLLM) -> None:
    status, out, err = _stopped_mid_tool(tmp_path, fake_llm, "text")
    assert status == 130, err
    assert out == SAID + "\n"
    assert err.strip().endswith("agentcli: run stopped by SIGINT [interrupted]")


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_reply_cut_off_shows_nothing_of_it(tmp_path: Path, fmt: str) -> None:
    """A stream cut mid-reply that fails the run (with no retries left): no part of the reply reaches stdout,
    only the json result (json) or nothing (text); the error is on stderr."""
    (Path(os.environ["AGENTCLI_HOME"]) / "config.toml").write_text("max_retries = 0\n")
    with FakeLLM([Reply(text="half of an answer that never ends", fault=Fault("drop_mid", after_events=4))],
                 loop=True) as fake:
        run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", fmt], tmp_path,
                       provider_env(fake, ANTHROPIC))
    assert run.status != 0, run.stderr
    assert "half of" not in run.stdout and "answer" not in run.stdout
    if fmt == "json":
        result = json.loads(run.stdout)
        assert result["is_error"] and f"[{result['error']['code']}]" in run.stderr
    else:
        assert run.stdout == "" and "agentcli: " in run.stderr
