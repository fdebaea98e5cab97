"""Every tool, driven through the real loop, policy and tool runner with random and hostile arguments: the run
always goes on (the model reads a tool error or a result), never ends in an internal error, and no tool lets an
exception escape (the runner's catch-all "X failed: SomeError" would mean a tool did not check its input).

Bounded in CI (AGENTCLI_FUZZ_EXAMPLES, default 30 per tool); raise it locally for a deeper search.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.events import RunFinished, ToolFinished
from agentcli.core.loop import Agent, AgentOptions
from agentcli.core.permissions import DenyingApprover
from agentcli.permissions.loader import load_policy
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import BUILTIN_TOOLS, ToolRegistry, load_tool
from tests.core.scripted import Say, ScriptedProvider

EXAMPLES = int(os.environ.get("AGENTCLI_FUZZ_EXAMPLES", "30"))
ESCAPED = re.compile(r"^\w+ failed: [A-Za-z_.]*(Error|Exception)\b")

HOSTILE_TEXT = [
    "", "a\0b", "\0", "/etc/passwd\0.txt", "\ud800", "x\udcff.py", "../" * 30 + "etc/shadow", "~", "~root/.ssh/id_rsa",
    "/", "/proc/self/mem", "/dev/zero", ".", "..", "-rf", "--help", "$(id)", "`id`", "a\nb", "\r\n", "\t",
    "x" * 5000, "é/ü/🙂", "[", "**/**/**/**/**/*", "{a,b}" * 30, "(?", "\\", "*" * 200, "NUL", "con", "\x1b[2J",
]
text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=60))
scalars = st.one_of(text, st.integers(min_value=-(2**70), max_value=2**70), st.floats(), st.booleans(), st.none())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
                      max_leaves=6)


def args_for(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any] | str]:
    """Mostly the tool's own keys (so calls get past validation into the tool), sometimes anything at all."""
    props = list(schema.get("properties", {}))
    keyed = st.dictionaries(st.sampled_from(props), values, max_size=len(props)) if props else st.just({})
    typed = st.fixed_dictionaries({}, optional={k: text for k in props}) if props else st.just({})
    raw = st.sampled_from(['{"a":', "[1,2]", "null", '"x"', "{}{}", "\0"])
    return st.one_of(typed, typed, keyed, st.dictionaries(text, values, max_size=3), raw)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-project")
    (root / "a.txt").write_text("alpha\nbeta\n")
    (root / "sub").mkdir()
    (root / "sub" / "b.py").write_text("print('b')\n")
    (root / ".env").write_text("SECRET=1\n")
    return root


def run_call(root: Path, name: str, call: dict[str, Any] | str) -> list[Any]:
    ctx = ToolContext(project_root=root, tool_timeout_s=10)
    policy = load_policy(root, "acceptEdits", ctx=ctx)  # edits inside the project run; anything else asks → denied
    agent = Agent(provider=ScriptedProvider([Say("", [(name, call)]), Say("done")]),
                  registry=ToolRegistry([name]), policy=policy, approver=DenyingApprover(), ctx=ctx,
                  options=AgentOptions(model="m", provider_name="scripted"))

    async def go() -> list[Any]:
        try:
            return [ev async for ev in agent.run("go")]
        finally:
            await agent.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("name", sorted(BUILTIN_TOOLS))
def test_tool_survives_hostile_arguments(name: str, project: Path) -> None:
    tool = load_tool(name)

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(call=args_for(tool.input_schema))
    def check(call: dict[str, Any] | str) -> None:
        events = run_call(project, name, call)
        last = events[-1]
        assert isinstance(last, RunFinished), last
        assert not last.result.is_error, f"{name}({call!r}) ended the run: {last.result.error_message}"
        finished = [e for e in events if isinstance(e, ToolFinished)]
        assert len(finished) == 1, events
        content = finished[0].result.content
        assert not ESCAPED.match(content), f"{name}({json.dumps(call)[:200]}) let an exception escape: {content}"

    check()
