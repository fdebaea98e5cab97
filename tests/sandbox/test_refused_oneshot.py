"""Hooks (`sandbox_hooks`) and MCP stdio servers (`mcp_sandbox`) under a bubblewrap that refuses, as a kernel that
forbids user namespaces does: nothing runs unconfined unsaid, a server the sandbox cannot start is one notice and
a failed line in `agentcli doctor`, and a hook the sandbox refused is never reported as a success."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from pathlib import Path

import pytest

from agentcli.hooks.config import HookSpec
from agentcli.hooks.engine import HookEngine
from agentcli.mcp.config import McpConfig, ServerConfig
from agentcli.mcp.health import check
from agentcli.sandbox import wrap_command
from agentcli.sandbox.bwrap import Bubblewrap, find_bwrap
from agentcli.settings.config import load_settings
from tests.sandbox.helpers import context, project

WRITER = str(Path(__file__).parents[1] / "mcp" / "servers" / "writer.py")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path)


@pytest.fixture
def refusing(tmp_path: Path) -> Path:
    """A `bwrap` (first on PATH: the mechanism agentcli picks) that refuses every run, probe or command."""
    real = find_bwrap()
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "bwrap"
    script.write_text('#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n')
    script.chmod(0o755)
    return script


def test_a_server_the_sandbox_cannot_start_is_said_and_not_run_unconfined(
        root: Path, refusing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{refusing.parent}{os.pathsep}{os.environ['PATH']}")
    marker = root / "server-ran"
    server = ServerConfig("boxed", "stdio", "flag", "test", command=sys.executable,
                          args=("-c", f"open({str(marker)!r}, 'w')"), sandbox=True)
    health = asyncio.run(check(McpConfig(servers={"boxed": server}), load_settings(root, {})))
    assert not marker.exists()  # not run unconfined behind the user's back
    assert health["boxed"].status == "failed"
    assert "sandbox: The bubblewrap sandbox does not work here (bwrap: setting up uid map: Permission denied)" \
        in health["boxed"].detail, health


def test_the_one_shot_wrapper_refuses_rather_than_wraps_nothing(root: Path, refusing: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{refusing.parent}{os.pathsep}{os.environ['PATH']}")
    wrap = functools.partial(wrap_command, load_settings(root, {}))
    with pytest.raises(RuntimeError, match="does not work here"):
        wrap(["true"], root, {})


def _engine(root: Path, refusing: Path, command: str) -> tuple[HookEngine, object]:
    ctx = context(root)
    assert ctx.sandbox is not None
    ctx.sandbox.mechanism = Bubblewrap(str(refusing))
    env = {"PATH": "/usr/bin:/bin"}
    engine = HookEngine([HookSpec("Stop", "", command, 10.0, "test")], project_dir=root, cwd=root, env=env,
                        sandbox=ctx.sandbox)
    return engine, ctx.sandbox


def test_a_confined_hook_whose_sandbox_refuses_is_said_once_and_not_a_success(root: Path, refusing: Path) -> None:
    (root / "hook.sh").write_text(f"touch {root}/hook-ran\n")  # a project script nobody trusted
    engine, sandbox = _engine(root, refusing, "bash hook.sh")

    def fire() -> object:
        return asyncio.run(engine.run(engine.select("Stop", None), {"hook_event_name": "Stop"}))

    first = fire()
    assert not (root / "hook-ran").exists()  # unconfined now, so the trust check applies again: not run unasked
    assert [r.outcome for r in first.runs] == ["error"]  # type: ignore[attr-defined]
    said = " ".join(first.messages)  # type: ignore[attr-defined]
    assert "The bubblewrap sandbox does not work here (bwrap: setting up uid map: Permission denied)" in said
    assert sandbox.take_notice() is None  # type: ignore[attr-defined]
    second = fire()
    assert "does not work here" not in " ".join(second.messages)  # type: ignore[attr-defined]  # said once


def test_a_confined_hook_refused_by_a_stale_verdict_is_an_error_and_the_sandbox_is_probed(
        root: Path, tmp_path: Path) -> None:
    real = find_bwrap()
    script = tmp_path / "bwrap"
    script.write_text(f'#!/bin/sh\n[ -e "{tmp_path}/refuse" ] && {{ echo "bwrap: setting up uid map: Permission '
                      f'denied" >&2; exit 1; }}\nexec {real} "$@"\n')
    script.chmod(0o755)
    warm, _ = _engine(root, script, "true")  # a session that probes and remembers "works"
    asyncio.run(warm.run(warm.select("Stop", None), {"hook_event_name": "Stop"}))
    (tmp_path / "refuse").touch()
    engine, sandbox = _engine(root, script, "echo passed")
    out = asyncio.run(engine.run(engine.select("Stop", None), {"hook_event_name": "Stop"}))
    assert [r.outcome for r in out.runs] == ["error"]
    assert any("does not work here" in m for m in out.messages), out.messages
    assert not sandbox.confining  # type: ignore[attr-defined]


def test_doctor_says_what_a_refusing_sandbox_means_for_hooks_and_servers(
        root: Path, tmp_path: Path, refusing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcli.commands.doctor import _sandbox_lines

    monkeypatch.setenv("PATH", f"{refusing.parent}{os.pathsep}{os.environ['PATH']}")
    home = tmp_path / "userhome"
    home.mkdir()
    (home / "config.toml").write_text("sandbox_hooks = true\nmcp_sandbox = true\n")
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    out = "\n".join(_sandbox_lines(load_settings(root, {})))
    assert "probe (true under the sandbox): FAILS — The bubblewrap sandbox does not work here (bwrap: setting up " \
           "uid map: Permission denied)" in out, out
    assert "sandbox_hooks: hooks run as you instead" in out
    assert "mcp_sandbox: stdio servers are not started" in out


def test_sandbox_run_under_a_sandbox_that_refuses_runs_nothing_and_says_why(root: Path, refusing: Path) -> None:
    from tests.cli.helpers import agentcli

    run = agentcli(["sandbox", "run", "--", "touch", "ran"], root,
                   {"PATH": f"{refusing.parent}{os.pathsep}{os.environ['PATH']}"})
    assert run.status == 1 and not (root / "ran").exists()
    assert "The bubblewrap sandbox does not work here (bwrap: setting up uid map: Permission denied); the command " \
           "was not run" in run.stderr and "[sandbox_unavailable]" in run.stderr, run.stderr
