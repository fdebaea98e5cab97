"""A warm server: what `warm` prepares at start leaves a first session nothing to import, and nothing of one
project's settings, trust or permissions reaches another project's session on the same server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentcli.acp.settings import session_settings
from agentcli.server.hub import Hub
from agentcli.settings import trust
from tests.cli.helpers import ANTHROPIC, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.server.conftest import ROOT, TIMEOUT

FIRST_SESSION = """
import asyncio, json, sys
from pathlib import Path
from agentcli.server.warm import warm
from agentcli.server.hub import Hub
from agentcli.acp.settings import session_settings

async def main():
    flags = {"model": sys.argv[2]}
    await warm(flags, Path.cwd())
    before = set(sys.modules)
    hub = Hub(flags)
    session = await hub.open(session_settings(sys.argv[1], flags, None))
    with session.watch() as queue:
        session.prompt("hello")
        while (await queue.get())["type"] != "result":
            pass
    await hub.aclose()
    print(json.dumps(sorted(set(sys.modules) - before)))

asyncio.run(main())
"""


def test_the_first_session_of_a_warm_server_imports_nothing_more(fake_llm: FakeLLM, tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.txt": "a\n"})
    fake_llm.push(Reply(text="hi"))
    env = {**os.environ, **provider_env(fake_llm, ANTHROPIC), "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", FIRST_SESSION, str(proj), ANTHROPIC], cwd=proj, env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr[-3000:]
    new = json.loads(run.stdout.strip().splitlines()[-1])
    late = [m for m in new if m.split(".")[0] in ("agentcli", "httpx", "httpcore", "h11", "anyio", "starlette")]
    assert not late, f"imported by the first session, not warmed at start (agentcli.server.warm.FIRST_USE): {late}"


def test_one_projects_settings_and_trust_stay_out_of_anothers_session(fake_llm: FakeLLM, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    granted = git_repo(tmp_path / "granted", {".agentcli/settings.toml":
                                              '[permissions]\nallow = ["Bash(make deploy:*)"]\n'})
    trust.trust(granted)
    plain = git_repo(tmp_path / "plain", {"a.txt": "a\n"})
    for key, value in provider_env(fake_llm, ANTHROPIC).items():
        monkeypatch.setenv(key, value)
    flags = {"model": ANTHROPIC}

    def rules(session: object) -> set[str]:
        return {r.text for r in session.driver.agent.policy.rules}  # type: ignore[attr-defined]

    async def main() -> tuple[set[str], set[str], set[str]]:
        hub = Hub(flags)
        try:
            first = await hub.open(session_settings(str(granted), flags, None))
            other = await hub.open(session_settings(str(plain), flags, None))
            again = await hub.open(session_settings(str(granted), flags, None))
            return rules(first), rules(other), rules(again)
        finally:
            await hub.aclose()

    first, other, again = asyncio.run(main())
    assert "Bash(make deploy:*)" in first and "Bash(make deploy:*)" in again
    assert "Bash(make deploy:*)" not in other
