"""Acceptance 6 of issue 9: after `agentcli -p` ends — normally, on SIGTERM, when it is SIGKILLed, when its child
is SIGKILLed — no process it started is alive. Real processes, found by a marker in their command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentcli.proc.groups import descendants
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sandbox.helpers import Ready, alive, gone, marker_process

ARGS = ["--permission-mode", "bypassPermissions", "--model", ANTHROPIC, "--output-format", "json"]


def _escapes(marker: str, ready: Path | None = None) -> str:
    sleeper = marker_process(marker, ready=ready)
    return f"nohup {sleeper} >/dev/null 2>&1 & setsid {sleeper} & ( ( {sleeper} & ) & ); echo started"


@pytest.mark.parametrize("sandbox", ["workspace-write", "danger-full-access"])
def test_nothing_survives_a_normal_exit(tmp_path: Path, fake_llm: FakeLLM, sandbox: str) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Bash", {"command": _escapes(marker), "run_in_background": True}),
                          ToolCall("Bash", {"command": _escapes(marker)})]),
        Reply(text="done"),
    )
    run = agentcli(["-p", "go", *ARGS, "--sandbox", sandbox], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert gone(marker), alive(marker)


def _start(proj: Path, fake_llm: FakeLLM, marker: str) -> subprocess.Popen[str]:
    """agentcli -p with a background job and a long foreground command, both trying to escape."""
    ready = Ready(proj / "ready.fifo")
    command = _escapes(marker, ready.path) + "; " + marker_process(marker, 120, ready.path)
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Bash", {"command": command, "run_in_background": True}),
                          ToolCall("Bash", {"command": command})]),
        Reply(text="done"),
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(provider_env(fake_llm, ANTHROPIC))
    proc = subprocess.Popen([sys.executable, "-m", "agentcli", "-p", "go", *ARGS], cwd=proj, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Four sleepers from each command: everything the run will start is running.
    try:
        assert ready.wait(8), alive(marker)
    finally:
        ready.close()
    assert len([p for p in alive(marker) if _is_sleeper(p)]) >= 8, alive(marker)
    return proc


def _is_sleeper(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return argv[0].endswith(b"python3") and argv[1:2] == [b"-c"]


def test_sigterm_kills_everything_and_still_prints_the_result(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    proc = _start(proj, fake_llm, marker)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    result = json.loads(out)
    assert proc.returncode == 143 and result["is_error"] and result["error"]["code"] == "terminated", err
    assert gone(marker), alive(marker)


def test_sigkill_of_agentcli_leaves_nothing(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    proc = _start(proj, fake_llm, marker)
    proc.kill()
    proc.communicate(timeout=30)
    assert gone(marker), alive(marker)


def test_sigkill_of_its_child_leaves_nothing(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    proc = _start(proj, fake_llm, marker)
    for child in [p for p in descendants(proc.pid) if Path(f"/proc/{p}/stat").exists()]:
        try:
            if os.getpgid(child) == child:  # the leaders agentcli started (the sandbox launchers)
                os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            continue
    out, err = proc.communicate(timeout=30)
    assert proc.returncode in (0, 3) and json.loads(out)["result"] == "done", err
    assert gone(marker), alive(marker)


def test_a_run_that_ends_normally_prints_no_stray_output(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(Reply(text="done"))
    run = agentcli(["-p", "go", *ARGS], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0 and run.json()["result"] == "done"
