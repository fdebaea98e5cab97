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

from tests.cli.helpers import ANTHROPIC, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
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
