from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import time
from pathlib import Path

import pytest

from agentcli.tools.base import ToolContext
from agentcli.tools.bash import BashTool

from .conftest import run


def _wait_gone(pid: int, timeout: float = 5.0) -> bool:
    """True once process `pid` has exited (a pidfd turns readable then), without sleeping to guess."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(fd)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def test_output_and_exit_code(ctx: ToolContext) -> None:
    out = run(BashTool(), {"command": "echo out; echo err >&2; exit 3"}, ctx)
    assert out.is_error
    assert out.content == "out\nerr\nExit code 3"
    assert out.metadata["exit_code"] == 3
    ok = run(BashTool(), {"command": "true", "description": "nothing"}, ctx)
    assert not ok.is_error and ok.content == "(no output)"


def test_killed_by_signal_reported(ctx: ToolContext) -> None:
    out = run(BashTool(), {"command": "kill -9 $$"}, ctx)
    assert out.is_error and "SIGKILL" in out.content


def test_a_shell_that_signals_itself_leaves_no_wrapper_noise(ctx: ToolContext) -> None:
    """`kill -TERM $$` ends the shell inside the command: its EXIT trap then finds the cwd pipe closed, and said
    "bash: 3: Bad file descriptor" in the command's output."""
    out = run(BashTool(), {"command": "echo before; kill -TERM $$"}, ctx)
    assert out.is_error and "Bad file descriptor" not in out.content
    assert out.content.startswith("before\n")


def test_working_directory_persists(project: Path, ctx: ToolContext) -> None:
    (project / "sub" / "deeper").mkdir(parents=True)
    tool = BashTool()
    run(tool, {"command": "cd sub"}, ctx)
    assert ctx.shell_cwd == project / "sub"
    assert run(tool, {"command": "pwd"}, ctx).content == str(project / "sub")
    run(tool, {"command": "cd deeper && exit 0"}, ctx)
    assert run(tool, {"command": "pwd"}, ctx).content == str(project / "sub" / "deeper")


def test_cd_outside_project_resets(project: Path, ctx: ToolContext) -> None:
    out = run(BashTool(), {"command": "cd / && ls >/dev/null"}, ctx)
    assert "reset" in out.content and ctx.shell_cwd == project


def test_vanished_cwd_falls_back_to_root(project: Path, ctx: ToolContext) -> None:
    gone = project / "gone"
    gone.mkdir()
    ctx.shell_cwd = gone
    gone.rmdir()
    out = run(BashTool(), {"command": "pwd"}, ctx)
    assert out.content.startswith(str(project)) and "is gone" in out.content


def test_env_and_stdin(project: Path) -> None:
    ctx = ToolContext(project_root=project, env={"PATH": os.environ["PATH"], "FOO": "bar"})
    assert run(BashTool(), {"command": "echo $FOO; cat; echo done"}, ctx).content == "bar\ndone"


def test_output_cap_keeps_head_and_tail(project: Path) -> None:
    ctx = ToolContext(project_root=project, max_output_chars=2000)
    out = run(BashTool(), {"command": "seq 1 200000"}, ctx)
    assert out.content.startswith("1\n2\n3\n")
    assert out.content.endswith("199999\n200000")
    assert "lines omitted" in out.content
    assert len(out.content) < 2200


def test_redacts_planted_secret(project: Path) -> None:
    ctx = ToolContext(project_root=project, secrets=("sk-live-PLANTED-9f8e7d",), max_output_chars=500)
    (project / "cfg").write_text("token=sk-live-PLANTED-9f8e7d\n")
    out = run(BashTool(), {"command": "cat cfg; seq 1 5000; cat cfg"}, ctx)
    assert "PLANTED" not in out.content
    assert out.content.startswith("token=[REDACTED]") and out.content.endswith("token=[REDACTED]")


def test_timeout_kills_the_whole_group(project: Path, ctx: ToolContext) -> None:
    started = time.monotonic()
    out = run(BashTool(), {"command": "sleep 30 & echo $! > child.pid; echo begun; sleep 30", "timeout": 400}, ctx)
    assert time.monotonic() - started < 10
    assert out.is_error and out.metadata["timed_out"]
    assert "begun" in out.content and "timed out after 0.4 s" in out.content
    child = int((project / "child.pid").read_text())
    assert _wait_gone(child), "the background child survived the timeout"


def test_context_timeout_caps_requested_timeout(project: Path) -> None:
    ctx = ToolContext(project_root=project, tool_timeout_s=0.3)
    out = run(BashTool(), {"command": "sleep 20", "timeout": 600000}, ctx)
    assert out.metadata["timed_out"] and "0.3 s" in out.content


def test_background_child_does_not_hang_the_call(ctx: ToolContext) -> None:
    started = time.monotonic()
    out = run(BashTool(), {"command": "sleep 30 & echo $!"}, ctx)
    pid = int(out.content.splitlines()[0])
    try:
        assert time.monotonic() - started < 10
        assert not out.is_error
    finally:
        _kill(pid)


def test_cancel_kills_the_process_group(project: Path, ctx: ToolContext) -> None:
    fifo = project / "ready.fifo"
    os.mkfifo(fifo)

    async def scenario() -> int:
        task = asyncio.create_task(BashTool().run({"command": f"sleep 30 & echo $! > {fifo}; wait"}, ctx))
        pid_text = await asyncio.to_thread(fifo.read_text)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return int(pid_text)

    child = asyncio.run(scenario())
    assert _wait_gone(child), "cancelling the call left its child running"


def test_syntax_error_is_reported(ctx: ToolContext) -> None:
    out = run(BashTool(), {"command": "if then fi"}, ctx)
    assert out.is_error and "syntax error" in out.content and "Exit code 2" in out.content


def test_very_long_command_still_runs(
    project: Path, ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    body = "".join(f"line {i}\n" for i in range(40_000))
    out = run(BashTool(), {"command": f"cat > big.txt <<'EOF'\n{body}EOF\nwc -l < big.txt"}, ctx)
    assert not out.is_error and out.content == "40000"
    assert (project / "big.txt").read_text() == body
    assert list(scratch.iterdir()) == [], "temporary files were left behind"


def test_cwd_survives_background_grandchildren_and_exit(project: Path, ctx: ToolContext) -> None:
    (project / "sub").mkdir()
    out = run(BashTool(), {"command": "cd sub && (sleep 30 & echo $! > bg.pid) && echo $PWD && exit 0"}, ctx)
    _kill(int((project / "sub" / "bg.pid").read_text()))
    assert out.content == str(project / "sub") and ctx.shell_cwd == project / "sub"
