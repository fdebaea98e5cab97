"""`agentcli acp` driven by acpx (npm; a headless ACP client nobody here wrote) against the fake LLM: a session,
a turn whose tool call needs permission, a cancel mid-turn, and a prompt after acpx's agent process has exited,
which acpx continues with `session/load` on a fresh `agentcli acp`."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, git_repo
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM

ROOT = Path(__file__).resolve().parents[2]
ACPX = ROOT / ".cache" / "npm-mcp" / "node_modules" / ".bin" / "acpx"
TIMEOUT = 90


class Acpx:
    def __init__(self, fake: FakeLLM, proj: Path, home: Path) -> None:
        if not ACPX.exists():
            raise RuntimeError(f"{ACPX} is missing: run `bash scripts/test` (scripts/mcp-test-servers installs it)")
        self.env = {**os.environ, "HOME": str(home), "ANTHROPIC_BASE_URL": fake.url,
                    "ANTHROPIC_API_KEY": "sk-ant-test-0000000000", "PYTHONPATH": str(ROOT)}
        agent = f"{sys.executable} -m agentcli acp --model {ANTHROPIC}"
        # --ttl 2: acpx's agent process exits two seconds after its last turn (the restart this test needs)
        self.base = [str(ACPX), "--agent", agent, "--cwd", str(proj), "--format", "json", "--timeout", "60",
                     "--ttl", "2"]

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([*self.base, *args], env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def run(self, *args: str) -> tuple[int, list[dict[str, object]]]:
        proc = self.start(*args)
        out, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 0, err[-3000:]
        return proc.returncode, [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def agent_and_owner(proj: Path) -> list[int]:
    """The live `agentcli acp` processes working in `proj` (this test's own temp directory) and their parents
    while those are acpx's queue owners (an agent whose owner is gone already has been handed to init)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if b"agentcli\0acp\0" not in Path(f"/proc/{pid}/cmdline").read_bytes() or \
                    os.readlink(f"/proc/{pid}/cwd") != os.path.realpath(proj):
                continue
            found.append(int(pid))
            ppid = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
            if b"__queue-owner" in Path(f"/proc/{ppid}/cmdline").read_bytes():
                found.append(int(ppid))
    return found


def wait_exited(pids: list[int], timeout: float) -> bool:
    """Whether every process in `pids` has ended within `timeout`: on pidfds, readable once their process ends."""
    deadline = time.monotonic() + timeout
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # already gone
        try:
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                return False
        finally:
            os.close(fd)
    return True


def ttl_expired(acpx: Acpx, proj: Path) -> None:
    """Wait for the exit itself (acpx's queue owner and its `agentcli acp` end --ttl after the last turn), not
    by polling `acpx status` (a node process each time); then acpx says so too."""
    pids = agent_and_owner(proj)
    assert wait_exited(pids, TIMEOUT), f"acpx's agent process did not exit after its ttl: {pids}"
    assert "will start on next prompt" in json.dumps(acpx.run("status")[1])


def messages(lines: list[dict[str, object]], method: str) -> list[dict[str, object]]:
    return [m for m in lines if m.get("method") == method]


def results(lines: list[dict[str, object]]) -> list[object]:
    return [m["result"] for m in lines if "result" in m]


def test_acpx_multi_turn_permission_cancel_and_load(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    acpx = Acpx(fake_llm, proj, tmp_path / "home")
    acpx.run("sessions", "new")

    target = proj / "made.txt"
    fake_llm.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(target), "content": "made\n"})]),
                  Reply(text="written"))
    _, lines = acpx.run("--approve-all", "prompt", "write it")
    asked = messages(lines, "session/request_permission")
    assert asked and asked[0]["params"]["toolCall"]["kind"] == "edit"  # type: ignore[index]
    assert target.read_text() == "made\n"
    assert {"stopReason": "end_turn"} in results(lines)

    ttl_expired(acpx, proj)  # acpx's agent process has ended after its --ttl; the next prompt starts a new one

    before = len(fake_llm.requests)
    fake_llm.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))
    turn = acpx.start("--approve-all", "prompt", "wait for ever")
    if not fake_llm.wait_for_requests(before + 1, TIMEOUT):
        turn.kill()
        raise AssertionError(turn.communicate())
    assert "write it" in json.dumps(fake_llm.requests[-1].body["messages"])  # the loaded session's history
    acpx.run("cancel")
    out, err = turn.communicate(timeout=TIMEOUT)
    assert '"method":"session/load"' in out, "acpx continued without session/load"
    assert '"stopReason":"cancelled"' in out, (out[-2000:], err[-2000:])
