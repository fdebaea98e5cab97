"""Issue 26: the MCP servers a Claude Code user keeps in `~/.claude.json` (`claude mcp add`: its top-level
`mcpServers`, and this project's entry under `projects`) start with no import step, as the user's own config's."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.mcp.test_headless_wait_e2e import offered


def test_claude_json_servers_are_offered_in_a_headless_run(tmp_path: Path, fake_llm: FakeLLM,
                                                          time_server: list[str]) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    state = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps({
        "mcpServers": {"time": {"type": "stdio", "command": time_server[0], "args": []}},
        "projects": {str(proj.resolve()): {"mcpServers": {"clock": {"command": time_server[0]}}}},
    }))
    fake_llm.push(Reply(text="ok"))
    run = agentcli(["-p", "go", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC), timeout=120)
    assert run.status == 0, run.stderr
    assert {"mcp__time__get_current_time", "mcp__clock__get_current_time"} <= offered(fake_llm, 0), run.stderr
    listed = agentcli(["mcp", "list"], proj, {"MCP_TIMEOUT": "30000"}, timeout=120)
    assert "time" in listed.stdout and "clock" in listed.stdout, listed.stdout
