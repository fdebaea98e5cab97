"""The one "wait, or kill the whole process tree" helper that Bash, background shells and hooks share."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentcli.proc.groups import alive, wait_or_kill


async def _tree(tmp_path: Path) -> tuple[asyncio.subprocess.Process, int]:
    """A group leader whose background grandchild wrote its pid (and so is running) before we go on."""
    pidfile = tmp_path / "kid.pid"
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", f"sleep 300 & echo $! > {pidfile}.tmp && mv {pidfile}.tmp {pidfile}; echo ready; wait",
        start_new_session=True, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    assert await proc.stdout.readline() == b"ready\n"
    return proc, int(pidfile.read_text())


def test_a_timeout_kills_the_leader_and_its_descendants(tmp_path: Path) -> None:
    async def main() -> tuple[bool, int | None, int]:
        proc, kid = await _tree(tmp_path)
        timed_out = await wait_or_kill(proc, 0.2)
        return timed_out, proc.returncode, kid

    timed_out, code, kid = asyncio.run(main())
    assert timed_out and code is not None and code < 0
    assert not alive(kid)


def test_a_process_that_exits_in_time_is_not_killed() -> None:
    async def main() -> tuple[bool, int | None]:
        proc = await asyncio.create_subprocess_exec("bash", "-c", "exit 3", start_new_session=True)
        return await wait_or_kill(proc, 30), proc.returncode

    assert asyncio.run(main()) == (False, 3)


def test_a_cancellation_kills_the_tree_before_it_goes_on(tmp_path: Path) -> None:
    async def main() -> tuple[bool, int]:
        proc, kid = await _tree(tmp_path)
        task = asyncio.ensure_future(wait_or_kill(proc, 300))
        await asyncio.sleep(0)  # let the wait begin
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return proc.returncode is not None, kid
        raise AssertionError("the cancellation was swallowed")

    reaped, kid = asyncio.run(main())
    assert reaped and not alive(kid)


def test_a_process_already_exiting_is_not_alive() -> None:
    """The kernel tears a SIGKILLed process (or one whose pid namespace died) down asynchronously; once its
    PF_EXITING flag is set it runs no user code again, so it does not count as alive (the attack table once
    reported such a process, with its memory already gone, as a survivor under load)."""
    import os

    from agentcli.proc.groups import PF_EXITING, stat_alive

    with open(f"/proc/{os.getpid()}/stat", "rb") as f:
        line = f.read()
    head, tail = line.rsplit(b")", 1)
    fields = tail.split()
    assert stat_alive(line)
    exiting = [*fields[:6], str(int(fields[6]) | PF_EXITING).encode(), *fields[7:]]
    assert not stat_alive(head + b") " + b" ".join(exiting))
    assert not stat_alive(head + b") " + b" ".join([b"Z", *fields[1:]]))
    assert not stat_alive(b"garbage")
