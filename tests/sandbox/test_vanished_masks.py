"""A host path the sandbox masks (a socket, a secret) that vanishes between the moment the command's argv is built
and bubblewrap's start (a service restarting) must not fail the command, and must not become reachable when it
comes back. The real bubblewrap runs behind a wrapper script that moves the masked socket's folder away just
before it execs bubblewrap (once), and optionally back on the next run: the race, made deterministic."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.hooks.process import run_command
from agentcli.sandbox.bwrap import Bubblewrap, find_bwrap
from agentcli.tools.base import ToolContext
from tests.sandbox.helpers import bash, context, host_service, project, visible_home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path)


@pytest.fixture
def home() -> Iterator[Path]:
    with visible_home() as path:
        yield path


@pytest.fixture
def service(home: Path) -> Iterator[tuple[Path, socket.socket]]:
    with host_service(home) as found:
        yield found


def racing(tmp_path: Path, folder: Path, *, back: bool) -> Path:
    """A bwrap that, on the first command (not the probe), moves `folder` away before it runs the real one — as a
    service removing its socket folder in that moment; with `back`, it puts the folder back on the next command."""
    real = find_bwrap()
    assert real is not None
    script = tmp_path / "bwrap"
    gone = f"{folder}.gone"
    script.write_text('#!/bin/sh\nd=$(dirname "$0")\n'
                      'case "$*" in *" -- true") ;; *) echo command >> "$d/runs";\n'
                      f'  if [ ! -e "$d/moved" ]; then mv "{folder}" "{gone}"; touch "$d/moved";\n'
                      f'  elif [ -e "$d/back" ]; then rm "$d/back"; mv "{gone}" "{folder}"; fi;;\n'
                      'esac\n'
                      f'exec {real} "$@"\n')
    script.chmod(0o755)
    if back:
        (tmp_path / "back").touch()
    return script


def session(root: Path, home: Path, binary: Path) -> ToolContext:
    ctx = context(root, home=home)
    assert ctx.sandbox is not None
    ctx.sandbox.mechanism = Bubblewrap(str(binary))
    assert ctx.sandbox.spec.home == home and (home / ".service" / "service.sock") in ctx.sandbox.hidden()
    return ctx


def connects(path: Path) -> str:
    script = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); print('CONNECTED')"
    return f"python3 -c \"{script}\" 2>&1 || echo REFUSED"


def test_a_masked_socket_that_vanishes_before_the_sandbox_starts_does_not_fail_the_command(
        root: Path, home: Path, service: tuple[Path, socket.socket], tmp_path: Path) -> None:
    binary = racing(tmp_path, service[0].parent, back=False)
    out = bash(session(root, home, binary), "echo one")
    assert out.content == "one" and not out.is_error
    assert (tmp_path / "runs").read_text().split() == ["command", "command"]  # launched again, once


def test_a_socket_that_comes_back_in_that_moment_stays_out_of_reach(
        root: Path, home: Path, service: tuple[Path, socket.socket], tmp_path: Path) -> None:
    path, server = service
    binary = racing(tmp_path, path.parent, back=True)
    out = bash(session(root, home, binary), connects(path))
    assert "CONNECTED" not in out.content and "REFUSED" in out.content, out.content
    assert path.exists() and not (tmp_path / "back").exists()  # it was back when the command ran
    server.settimeout(0)
    with pytest.raises(BlockingIOError):
        server.accept()


def test_a_socket_gone_when_the_command_is_wrapped_stays_out_of_reach_when_it_returns(
        root: Path, home: Path, service: tuple[Path, socket.socket]) -> None:
    path, server = service
    ctx = context(root, home=home)
    assert ctx.sandbox is not None and path in ctx.sandbox.hidden()
    gone = path.parent.with_name(".gone")
    path.parent.rename(gone)
    argv, env = ctx.sandbox.wrap(["/bin/sh", "-c", connects(path)], root, {"PATH": "/usr/bin:/bin"})
    gone.rename(path.parent)  # the service is back before bubblewrap mounts anything
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30, check=False)
    assert "CONNECTED" not in out.stdout and "REFUSED" in out.stdout, (out.stdout, out.stderr)
    server.settimeout(0)
    with pytest.raises(BlockingIOError):
        server.accept()


def test_a_background_command_survives_the_same_race(
        root: Path, home: Path, service: tuple[Path, socket.socket], tmp_path: Path) -> None:
    from agentcli.tools.background import kill_all
    from agentcli.tools.bash import BashTool

    binary = racing(tmp_path, service[0].parent, back=False)
    ctx = session(root, home, binary)

    async def go() -> str:
        try:
            await BashTool().run({"command": "echo one", "run_in_background": True}, ctx)
            shell = ctx.shells["bash_1"]
            await shell.finished.wait()
            return shell.take()[0]
        finally:
            await kill_all(ctx)

    assert asyncio.run(go()) == "one\n"
    assert (tmp_path / "runs").read_text().split() == ["command", "command"]


def test_a_confined_hook_survives_the_same_race(
        root: Path, home: Path, service: tuple[Path, socket.socket], tmp_path: Path) -> None:
    binary = racing(tmp_path, service[0].parent, back=False)
    ctx = session(root, home, binary)
    assert ctx.sandbox is not None
    done = asyncio.run(run_command("cat; echo one", b"in ", root, {"PATH": "/usr/bin:/bin"}, 10.0,
                                   wrap=ctx.sandbox.wrap))
    assert (done.exit_code, done.stdout, done.stderr) == (0, "in one\n", "")
    assert (tmp_path / "runs").read_text().split() == ["command", "command"]


def test_a_users_bang_command_survives_the_same_race(
        root: Path, home: Path, service: tuple[Path, socket.socket], tmp_path: Path) -> None:
    from agentcli.ui.attach import run_shell

    binary = racing(tmp_path, service[0].parent, back=False)
    ctx = session(root, home, binary)
    assert asyncio.run(run_shell("echo one", root, ctx)) == (0, "one\n")
    assert (tmp_path / "runs").read_text().split() == ["command", "command"]


def test_a_sandboxed_mcp_server_survives_the_same_race(
        root: Path, home: Path, service: tuple[Path, socket.socket], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The `mcp` SDK spawns the server (no descriptor of ours passes): it announces its start on its stderr."""
    import os
    import sys

    from agentcli.mcp.config import McpConfig, ServerConfig
    from agentcli.mcp.health import check
    from agentcli.settings.config import load_settings

    racing(tmp_path, service[0].parent, back=False)  # tmp_path/bwrap: first on PATH, the mechanism picked
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(home))  # the session's home: where the socket walk finds the service
    writer = str(Path(__file__).parents[1] / "mcp" / "servers" / "writer.py")
    server = ServerConfig("boxed", "stdio", "flag", "test", command=sys.executable, args=(writer,), sandbox=True)
    health = asyncio.run(check(McpConfig(servers={"boxed": server}), load_settings(root, {})))
    assert health["boxed"].status == "connected", health
    assert (tmp_path / "runs").read_text().split() == ["command", "command"]
