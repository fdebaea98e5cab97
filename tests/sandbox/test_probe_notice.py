"""Issue 28: a sandbox mechanism that turns out not to work is never a silent fallback — the user gets a notice on
the event stream and `agentcli doctor` a line, in danger-full-access too (where bubblewrap still gives the PID
namespace). A bwrap on PATH that refuses, as a kernel forbidding user namespaces would."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentcli.assembly.runtime import build
from agentcli.commands.doctor import _sandbox_lines
from agentcli.core.events import Notice
from agentcli.core.permissions import DenyingApprover
from tests.cli.helpers import in_process_project
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

REFUSAL = "bwrap: setting up uid map: Permission denied"


@pytest.fixture
def refusing_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "bwrap").write_text(f'#!/bin/sh\necho "{REFUSAL}" >&2\nexit 1\n')
    (bindir / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")


@pytest.mark.usefixtures("refusing_bwrap")
def test_the_fallback_is_a_notice_on_the_event_stream(tmp_path: Path, fake_llm: FakeLLM,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.py": "a = 1\n"},
                                     sandbox_mode="danger-full-access", permission_mode="bypassPermissions")
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "echo one"})]),
                  Reply(tool_calls=[ToolCall("Bash", {"command": "echo two"})]), Reply(text="done"))

    async def go() -> list[str]:
        built = await build(settings, DenyingApprover())
        try:
            return [ev.text async for ev in built.agent.run("go") if isinstance(ev, Notice)]
        finally:
            await built.agent.aclose()

    told = [text for text in asyncio.run(go()) if "does not work here" in text]
    assert len(told) == 1, told  # once, not per command
    assert REFUSAL in told[0] and "PID namespace" in told[0]


@pytest.mark.usefixtures("refusing_bwrap")
def test_doctor_shows_it(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    _, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"a.py": "a = 1\n"},
                                     sandbox_mode="danger-full-access")
    lines = "\n".join(_sandbox_lines(settings))
    assert f"FAILS — The bubblewrap sandbox does not work here ({REFUSAL}): commands run without its PID" in lines
    assert "doctor` shows more" not in lines, lines
