"""The SDK's `set_model` switches the way the REPL's /model does (agentcli.assembly.switching, one code path): to
a local server known to render its prompt without the tools, the context meter stops counting the tool
definitions, so a small window is not taken for full (and compacted) every turn. Real stream-json control
requests against the fake OpenAI-compatible server; the probe cache says which model's template drops the tools."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentcli.providers import probe
from tests.cli.helpers import git_repo
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import Raw


def control(raw: Raw, n: int, subtype: str, **fields: Any) -> dict[str, Any]:
    """Send control request `req_n`; the `response` of its answer."""
    raw.send({"type": "control_request", "request_id": f"req_{n}", "request": {"subtype": subtype, **fields}})
    lines = raw.read_until(lambda o: o.get("type") == "control_response"
                           and o["response"].get("request_id") == f"req_{n}")
    answer = lines[-1]["response"]
    assert answer["subtype"] == "success", answer
    return dict(answer["response"])


def test_set_model_to_a_server_that_drops_the_tools_leaves_them_out_of_the_context_count(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.txt": "alpha\n"})
    probe.remember_tools_in_prompt(fake_llm.openai_url, "local-b", False)  # an earlier run learned it
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "--output-format", "stream-json", "--input-format", "stream-json",
         "--verbose", "--base-url", fake_llm.openai_url, "--model", "local-a"],
        cwd=proj, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    raw = Raw(proc)
    with_tools = control(raw, 1, "get_context_usage")
    assert with_tools["model"] == "local-a"
    assert control(raw, 2, "set_model", model="local-b") == {"model": "local-b"}
    without = control(raw, 3, "get_context_usage")
    assert without["model"] == "local-b"
    # no messages yet: the count is the system prompt plus (for local-a) the tool definitions, thousands of tokens
    assert with_tools["totalTokens"] - without["totalTokens"] > 2000, (with_tools, without)
    assert control(raw, 4, "set_model", model="local-a") == {"model": "local-a"}
    assert control(raw, 5, "get_context_usage")["totalTokens"] == with_tools["totalTokens"]  # counted again
    status, _, err = raw.finish()
    assert status == 0, err
    assert not [r for r in fake_llm.requests if r.path.endswith("/chat/completions")]  # no turn was needed
