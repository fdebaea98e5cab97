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
