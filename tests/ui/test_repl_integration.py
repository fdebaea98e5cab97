"""The REPL's integration with plan review, notices, the session picker, the rewind view and the terminal guard
(in-process, with a scripted provider and prompt_toolkit pipe input)."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import termios
import textwrap
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from agentcli.assembly.runtime import Built
from agentcli.assembly.selection import Selection
from agentcli.core.events import MessageStop, ToolCallDelta, ToolCallEnd, ToolCallStart
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.permissions.loader import load_policy
from agentcli.providers.base import ProviderConfig
from agentcli.redact import Redactor
from agentcli.session.checkpoint import ShadowGit
from agentcli.session.index import SessionSummary
from agentcli.session.store import OpenedSession
from agentcli.session.writer import SessionWriter
from agentcli.ui.picker import SessionPicker, age, describe, matches
from agentcli.ui.render import Renderer
from agentcli.ui.repl import PausingApprover, Repl
from agentcli.ui.rewind import patch_lines
from tests.ui.scripted import Script, ScriptedProvider, make_repl, text_reply


def tool_call(name: str, args: str, call_id: str = "c1") -> Script:
    return [ToolCallStart(0, call_id, name), ToolCallDelta(0, args), ToolCallEnd(0), MessageStop("tool_use")]


class PlanRecorder:
    """An inner approver that notes, for each plan review, whether the live region and the key reader were
    paused."""

    interactive = True

    def __init__(self, repl: Repl) -> None:
        self.repl = repl
        self.seen: list[tuple[str | None, bool, bool]] = []

    async def approve(self, request: ApprovalRequest) -> Approval:
        if request.kind != "plan":
            return Approval("allow")
        renderer = self.repl.renderer
        self.seen.append((request.plan, renderer._live is None, self.repl.keys._loop is None))
        return Approval("allow", mode="acceptEdits")


def test_plan_review_pauses_the_live_region(tmp_path: Path) -> None:
    provider = ScriptedProvider([tool_call("ExitPlanMode", '{"plan": "1. do it"}'), text_reply("on it")])
    repl, _ = make_repl(tmp_path, provider)
    repl.__dict__["renderer"] = Renderer(Console(file=io.StringIO(), force_terminal=True, width=80), live=True)
    assert repl.agent is not None and repl.built is not None
    inner = PlanRecorder(repl)
    repl.agent.approver = PausingApprover(repl, inner)
    repl.adopt(repl.built)
    repl.set_mode("plan")
    live_during_turn: list[bool] = []

    async def go() -> None:
        task = asyncio.create_task(repl.submit("plan it"))
        await asyncio.sleep(0)
        live_during_turn.append(repl.renderer._live is not None)
        await task

    asyncio.run(go())
    assert live_during_turn == [True]
    assert inner.seen == [("1. do it", True, True)]
    assert repl.mode == "acceptEdits" and repl.agent.policy.mode == "acceptEdits"
    assert repl.renderer._live is None  # stopped at the end of the turn


class Remember:
    async def approve(self, request: ApprovalRequest) -> Approval:
        return Approval("allow", remember="Bash(touch made.txt)", scope="local")


def test_policy_and_session_notices_show_during_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([tool_call("Bash", '{"command": "touch made.txt"}'), text_reply("finished")])
    repl, out = make_repl(tmp_path, provider)
    assert repl.agent is not None
    agent = repl.agent
    agent.policy = load_policy(tmp_path, ctx=agent.ctx)
    (tmp_path / ".agentcli").write_text("not a directory")  # the remembered rule cannot be saved there
    agent.approver = Remember()
    missing = tmp_path / "no-such-tree"  # git cannot run there: the checkpoint is skipped
    shadow = ShadowGit(tmp_path / "store" / "shadow.git", missing, tmp_path / "store" / "index")
    writer = SessionWriter(tmp_path / "s.jsonl", "sess-2", redactor=Redactor(()), shadow=shadow)
    agent.sink = writer
    repl.adopt(Built(agent, Selection(ProviderConfig("scripted"), "scripted-model"),
                     OpenedSession("sess-2", writer, writer=writer)))
    try:
        asyncio.run(repl.submit("run it"))
        asyncio.run(repl.submit("again"))
    finally:
        writer.close()
    text = out.getvalue()
    assert text.count("⚠ could not save Bash(touch made.txt)") == 1
    records = (tmp_path / "s.jsonl").read_text().splitlines()
    failed = [line for line in records if '"type":"checkpoint"' in line and '"error"' in line]
    assert failed and text.count("⚠ checkpoint skipped") == len(failed)  # each failed snapshot shown once
    assert text.index("could not save") < text.index("finished")
    assert text.index("checkpoint skipped") < text.index("finished")


def summary(sid: str, prompt: str, **kw: object) -> SessionSummary:
    s = SessionSummary(sid, f"/x/{sid}.jsonl", first_prompt=prompt, turns=2, model="m1", updated=1000.0)
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def test_picker_filters_as_you_type() -> None:
    sessions = [
        summary("aaaa1111", "tell me about lions"),
        summary("bbbb2222", "tell me about zebras", name="stripes", git_branch="feature/x"),
        summary("cccc3333", "tell me about eagles"),
    ]
    assert matches(sessions[1], "STRIPES zeb") and matches(sessions[1], "feature") and not matches(sessions[0], "zeb")
    top, bottom = describe(sessions[1], now=1060.0)
    assert top == "stripes  · 1m ago · 2 turns · m1 · ⎇ feature/x" and bottom == "bbbb2222  tell me about zebras"
    assert (age(5), age(300), age(7200), age(3 * 86400), age(30 * 86400)) == (
        "just now", "5m ago", "2h ago", "3d ago", "4w ago")

    async def pick(keys: str) -> str | None:
        with create_pipe_input() as pipe:
            pipe.send_text(keys)
            return await SessionPicker(sessions, now=1060.0, input=pipe, output=DummyOutput()).run()

    assert asyncio.run(pick("zeb\r")) == "bbbb2222"
    assert asyncio.run(pick("\x1b[B\x1b[B\r")) == "cccc3333"
    assert asyncio.run(pick("nothing-matches\r\x03")) is None


def test_patch_lines_group_per_file() -> None:
    patch = textwrap.dedent("""\
        diff --git a/a.txt b/a.txt
        index 1..2 100644
        --- a/a.txt
        +++ b/a.txt
        @@ -1 +1 @@
        -changed
        +alpha
        diff --git a/new.txt b/new.txt
        new file mode 100644
        --- /dev/null
        +++ b/new.txt
        @@ -0,0 +1 @@
        +made
        """)
    lines = [t.plain for t in patch_lines(patch, 80)]
    assert lines == ["  a.txt", "    @@ -1 +1 @@", "    -changed", "    +alpha", "  new.txt", "    @@ -0,0 +1 @@",
                     "    +made"]


GUARDED = """
import asyncio, os, signal, sys
from agentcli.ui.keys import TurnKeys

fd, how = int(sys.argv[1]), sys.argv[2]

async def main() -> None:
    keys = TurnKeys(lambda: None, lambda: None, lambda t: None, fd=fd)
    keys.guard_terminal()
    import termios
    print("nosig" if not termios.tcgetattr(fd)[3] & termios.ISIG else "sig", flush=True)
    if how == "raw-term":  # at the prompt: prompt_toolkit's raw mode, not the turn's cbreak
        import tty
        tty.setraw(fd)
    else:
        keys.start()
    import termios
    print("cbreak" if not termios.tcgetattr(fd)[3] & termios.ICANON else "cooked", flush=True)
    if how == "exit":
        sys.exit(3)
    if how == "raise":
        raise RuntimeError("boom")
    os.kill(os.getpid(), signal.SIGTERM)

asyncio.run(main())
"""


@pytest.mark.parametrize(("how", "status"), [("exit", 3), ("raise", 1), ("term", -15), ("raw-term", -15)])
def test_terminal_restored_however_the_process_ends(how: str, status: int) -> None:
    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        proc = subprocess.run([sys.executable, "-c", GUARDED, str(slave), how], pass_fds=[slave],
                              capture_output=True, text=True, timeout=20, check=False)
        assert proc.stdout.split() == ["nosig", "cbreak"], proc.stderr
        assert proc.returncode == status, proc.stderr
        after = termios.tcgetattr(slave)
        assert after[3] & termios.ICANON and after[3] & termios.ECHO and after[3] & termios.ISIG
        assert after[3] == before[3]
    finally:
        os.close(master)
        os.close(slave)
