"""Issue 6 from outside: through the real `agentcli -p`, Grep and Glob never hand the model a `.env` secret."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

KEY = "sk-planted-e2e-0123456789abcdef"


def test_grep_and_glob_never_reveal_the_planted_key(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"app.py": 'API_KEY = os.environ["API_KEY"]\n', ".gitignore": ""})
    (proj / ".env").write_text(f"API_KEY={KEY}\n")  # untracked, as secrets are
    (proj / "conf").mkdir()
    (proj / "conf" / ".env.production").write_text(f"API_KEY={KEY}\n")
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Grep", {"pattern": KEY, "output_mode": "content"}),
                          ToolCall("Grep", {"pattern": "API_KEY", "output_mode": "content", "-C": 3}),
                          ToolCall("Grep", {"pattern": "API_KEY", "output_mode": "count"}),
                          ToolCall("Grep", {"pattern": "API_KEY"}),
                          ToolCall("Glob", {"pattern": "**/.env*"}),
                          ToolCall("Glob", {"pattern": "**/*"})]),
        Reply(text="searched"),
    )
    run = agentcli(["-p", "find the key", "--model", ANTHROPIC, "--output-format", "json"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert run.json()["permission_denials"] == []
    results = [b for m in fake_llm.requests[1].body["messages"] if isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]
    assert len(results) == 6
    text = json.dumps(results)
    assert KEY not in text and f"{proj}/.env" not in text and ".env.production" not in text
    assert "No matches found." in text and "app.py" in text
