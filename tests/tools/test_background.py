from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agentcli.tools import background
from agentcli.tools.background import BashOutputTool, KillShellTool
from agentcli.tools.base import ToolContext
from agentcli.tools.bash import BashTool
from agentcli.tools.registry import load_tool
from agentcli.tools.shells import BackgroundShell

from .test_bash import _wait_gone


def test_registered_names() -> None:
    assert isinstance(load_tool("BashOutput"), BashOutputTool)
    assert isinstance(load_tool("KillShell"), KillShellTool)


def test_start_read_incrementally_and_finish(project: Path, ctx: ToolContext) -> None:
    fifo = project / "go.fifo"
    os.mkfifo(fifo)

    async def scenario() -> None:
        started = await BashTool().run(
            {"command": f"echo first; read x < {fifo}; echo got $x; exit 4", "run_in_background": True}, ctx
        )
        assert not started.is_error and "ID: bash_1" in started.content
        shell = background.shells(ctx)["bash_1"]
        await shell.output_arrived.wait()
        out = await BashOutputTool().run({"bash_id": "bash_1"}, ctx)
        assert out.content == "Status: running\nfirst"
        again = await BashOutputTool().run({"bash_id": "bash_1"}, ctx)
        assert again.content == "Status: running\n(no new output)"
        await asyncio.to_thread(fifo.write_text, "hello\n")
        await shell.finished.wait()
        await asyncio.wait_for(_drained(shell), 5)
        done = await BashOutputTool().run({"bash_id": "bash_1", "filter": "^got"}, ctx)
        assert done.content == "Status: exited with code 4\ngot hello"
        assert done.metadata["exit_code"] == 4

    asyncio.run(scenario())


async def _drained(shell: BackgroundShell) -> None:
    while b"got" not in shell.unread:
        shell.output_arrived.clear()
        await shell.output_arrived.wait()


def test_kill_shell_stops_the_group(ctx: ToolContext) -> None:
    async def scenario() -> int:
        await BashTool().run({"command": "sleep 30 & echo $!; wait", "run_in_background": True}, ctx)
        shell = background.shells(ctx)["bash_1"]
        await shell.output_arrived.wait()
        child = int(shell.unread.decode().split()[0])
        out = await KillShellTool().run({"shell_id": "bash_1"}, ctx)
        assert "Killed background shell bash_1" in out.content
        status = await BashOutputTool().run({"bash_id": "bash_1"}, ctx)
        assert status.content.startswith("Status: killed")
        again = await KillShellTool().run({"shell_id": "bash_1"}, ctx)
        assert "already finished" in again.content
        return child

    child = asyncio.run(scenario())
    assert _wait_gone(child)


def test_loop_shutdown_kills_background_shells(ctx: ToolContext) -> None:
    async def scenario() -> int:
        out = await BashTool().run({"command": "sleep 30", "run_in_background": True}, ctx)
        return int(out.metadata["pid"])

    pid = asyncio.run(scenario())
    assert _wait_gone(pid), "a background shell outlived its event loop"


def test_unknown_ids_and_bad_filter(ctx: ToolContext) -> None:
    out = asyncio.run(BashOutputTool().run({"bash_id": "bash_9"}, ctx))
    assert out.is_error and "No background shell" in out.content
    out = asyncio.run(KillShellTool().run({"shell_id": "nope"}, ctx))
    assert out.is_error

    async def bad_filter() -> None:
        await BashTool().run({"command": "true", "run_in_background": True}, ctx)
        res = await BashOutputTool().run({"bash_id": "bash_1", "filter": "("}, ctx)
        assert res.is_error and "Invalid filter" in res.content
        await background.kill_all(ctx)

    asyncio.run(bad_filter())


def test_background_output_is_redacted(project: Path) -> None:
    ctx = ToolContext(project_root=project, secrets=("PLANTED-SECRET-77",))

    async def scenario() -> str:
        await BashTool().run({"command": "echo PLANTED-SECRET-77", "run_in_background": True}, ctx)
        shell = background.shells(ctx)["bash_1"]
        await shell.finished.wait()
        await asyncio.wait_for(shell.output_arrived.wait(), 5)
        return (await BashOutputTool().run({"bash_id": "bash_1"}, ctx)).content

    content = asyncio.run(scenario())
    assert "PLANTED" not in content and "[REDACTED]" in content
