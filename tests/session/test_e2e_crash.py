"""Issue 4 acceptance 1: SIGKILL a multi-turn `agentcli -p` run at random moments; every time, the session
resumes, its transcript is valid for the provider, nothing completed is lost, and the run can finish.

AGENTCLI_CRASH_LOOPS sets the number of kills (the acceptance run uses 50; the default keeps the suite fast).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

from agentcli.session import layout
from agentcli.session.reader import load, read_file
from agentcli.session.repair import repair
from tests.cli.helpers import ANTHROPIC, agentcli, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

STATS = {"killed": 0, "finished": 0, "interrupted calls": 0, "torn lines": 0}
LOOPS = int(os.environ.get("AGENTCLI_CRASH_LOOPS", "6"))


def _script() -> list[Reply]:
    calls = [Reply(text=f"step {i}", tool_calls=[ToolCall("Bash", {"command": f"echo {i} >> log.txt"}),
                                                 ToolCall("Read", {"file_path": "log.txt"})]) for i in range(40)]
    return [*calls, Reply(text="finished")]


def _start(project: Path, env: dict[str, str], prompt: str, resume: bool) -> subprocess.Popen[bytes]:
    """Start a run and return once it has printed `system/init`: its session file exists from then on, so the
    random kill that follows always lands inside a session (a kill during start-up would test nothing)."""
    full = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))} | env
    args = [sys.executable, "-m", "agentcli", "-p", prompt, "--model", ANTHROPIC, "--max-turns", "50",
            "--permission-mode", "bypassPermissions", "--output-format", "stream-json", *(["-c"] if resume else [])]
    proc = subprocess.Popen(args, cwd=project, env=full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert b'"subtype":"init"' in first, first
    out = proc.stdout

    def drain() -> None:  # keep the pipe drained until the run exits
        with out:
            out.read()

    threading.Thread(target=drain, daemon=True).start()
    return proc


def _check_valid(project: Path, before: bytes) -> bytes:
    d = layout.sessions_dir(project)
    files = list(d.glob("*.jsonl"))
    if not files:
        return b""
    (path,) = files
    raw = path.read_bytes()
    assert raw.startswith(before), "a record written before the crash was lost or changed"
    parsed = read_file(path)
    # Only torn lines: the last one, and earlier ones a later writer fenced off with a newline.
    assert all(p.kind in ("torn", "corrupt") and "not valid JSON" in p.detail for p in parsed.problems)
    assert sum(p.kind == "torn" for p in parsed.problems) <= 1
    loaded = load(d, path.name.removesuffix(".jsonl"))
    fixed = repair(loaded.messages())
    assert repair(fixed.messages).notes == []  # the repaired transcript is valid
    STATS["interrupted calls"] += fixed.tail is not None
    STATS["torn lines"] += bool(parsed.problems)
    return raw[: parsed.good_end]


def test_sigkill_at_random_moments_then_resume(project: Path) -> None:
    rng = random.Random(int(os.environ.get("AGENTCLI_CRASH_SEED", "4")))
    with FakeLLM(_script(), loop=True) as fake:
        env = provider_env(fake, ANTHROPIC)
        before = b""
        i = 0
        while STATS["killed"] < LOOPS and i < 2 * LOOPS:
            i += 1
            proc = _start(project, env, f"run {i}", resume=bool(before))
            try:
                proc.wait(timeout=rng.uniform(0.0, 1.2))
                STATS["finished"] += 1
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                STATS["killed"] += 1
            before = _check_valid(project, before)
        final = agentcli(["-p", "finish", "-c", "--model", ANTHROPIC, "--max-turns", "50",
                          "--permission-mode", "bypassPermissions", "--output-format", "json"], project, env)
        assert final.status == 0, final.stderr
        assert final.json()["subtype"] == "success"
        assert fake.violations == []
        _check_valid(project, before)
    print(f"crash loop: {STATS}")
    assert STATS["killed"] == LOOPS


def test_sigkill_during_compaction_then_resume(project: Path) -> None:
    """Issue 12 acceptance 6: kills land inside compactions (at the moment the summarising request arrives,
    deterministically, and at random moments between); every time the session loads a valid transcript."""
    import json
    import signal

    from tests.compaction.helpers import is_summary_request, kinds, session_records, set_window

    set_window(8_000)
    chatty = "Here is what I found while looking through the log file and what it means for the task. " * 30
    script = [Reply(text=f"step {i}. {chatty}", tool_calls=[ToolCall("Bash", {"command": f"echo {i} >> log.txt"})])
              for i in range(40)]
    rng = random.Random(int(os.environ.get("AGENTCLI_CRASH_SEED", "12")))
    current: dict[str, subprocess.Popen[bytes] | bool] = {"kill_at_summary": False}
    killed_in_summary = 0

    def responder(path: str, body: dict[str, object]) -> Reply | None:
        nonlocal killed_in_summary
        if not is_summary_request(body):
            return None
        proc = current.get("proc")
        if current["kill_at_summary"] and isinstance(proc, subprocess.Popen) and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed_in_summary += 1
        return Reply(text="## Task\nkeep logging\n## Next\nmore steps")

    # No "finished" in the looped script: whichever run took it would end before its compaction, and a run meant to
    # be killed at the summary request would miss it (a flake under load). The last run is told to finish below.
    with FakeLLM(script, loop=True, responder=responder) as fake:
        env = provider_env(fake, ANTHROPIC)
        before = b""
        for i in range(LOOPS):
            current["kill_at_summary"] = i % 2 == 0
            proc = _start(project, env, f"run {i}", resume=bool(before))
            current["proc"] = proc
            try:
                proc.wait(timeout=rng.uniform(0.5, 2.0) if i % 2 else 30)
            except subprocess.TimeoutExpired:
                proc.kill()
            proc.wait()
            before = _check_valid(project, before)
        fake.responder = lambda path, body: Reply(text="finished")
        final = agentcli(["-p", "finish", "-c", "--model", ANTHROPIC, "--max-turns", "50",
                          "--permission-mode", "bypassPermissions", "--output-format", "json"], project, env)
        assert final.status == 0, final.stderr
        assert fake.violations == []
        _check_valid(project, before)
    assert killed_in_summary >= LOOPS // 2
    records = kinds(session_records(project), "compaction")
    assert records, "no compaction finished between the kills"
    assert all(json.loads(json.dumps(r["data"]["messages"])) for r in records)
