"""Never silent, in a subagent too: a notice a Task call's child raises (a hook that failed while it worked) reaches
every front end once, marked as the child's — the REPL, `-p` text and stream-json, ACP, the Python API — also from a
background child; and what a child cannot start or has to drop (itself, a tool its agent file names, the tools a
local server leaves out of its prompt) is such a notice, and a doctor line where the setup tells. The children are
real: the fake LLM server plays the parent's Task calls and the children's replies."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import AgentMessageChunk
from rich.console import Console

from agentcli import api
from agentcli.agents.definitions import AgentDefinition
from agentcli.commands.doctor import agent_lines
from agentcli.core.events import AgentEvent, Notice, RunFinished, SubagentEvent
from agentcli.paths import home
from agentcli.settings.config import load_settings
from agentcli.ui.repl import Repl
from tests.acp.inproc import TIMEOUT, Client, connected
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall, Usage
from tests.fakes.server import FakeLLM

FAILED = "PreToolUse:Read hook failed (exit 1): broken"
TASK_ID = "toolu_sub"


def failing_hook() -> None:
    """The user's own hook (~/.agentcli/config.toml), failing on every Read."""
    home().mkdir(parents=True, exist_ok=True)
    (home() / "config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "Read"\nhooks = [{type = "command", command = "echo broken >&2; exit 1"}]\n')


@pytest.fixture
def proj(tmp_path: Path, fake_llm: FakeLLM) -> Path:
    """A project, the user's hook that fails on every Read, and the replies: the parent starts an explore child,
    which reads a file (its hook fails), then both answer."""
    failing_hook()
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "look", "prompt": "look at a.py",
                                            "subagent_type": "explore"}, id=TASK_ID)]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]),
        Reply(text="child done"),
        Reply(text="parent done"),
    )
    return git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})


def run_p(proj: Path, fake: FakeLLM, fmt: str, requests: int = 4) -> Any:
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", fmt], proj, provider_env(fake, ANTHROPIC))
    assert run.status == 0, run.stderr
    assert len(fake.requests) == requests  # every child asked its model what the script says
    return run


def test_stream_json_gives_a_childs_notice_once_with_its_task_call(proj: Path, fake_llm: FakeLLM) -> None:
    notices = [x for x in run_p(proj, fake_llm, "stream-json").lines() if x.get("subtype") == "notice"]
    assert [(n["level"], n["text"], n["parent_tool_use_id"]) for n in notices] == [("warning", FAILED, TASK_ID)]


def test_text_output_says_a_childs_notice_once_on_stderr(proj: Path, fake_llm: FakeLLM) -> None:
    run = run_p(proj, fake_llm, "text")
    assert run.stdout == "parent done\n"
    assert run.stderr.count("hook failed") == 1
    assert f"agentcli (subagent explore): {FAILED}\n" in run.stderr


def test_the_repl_shows_a_childs_notice_once_marked_as_its_own(
    proj: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in provider_env(fake_llm, ANTHROPIC).items():
        monkeypatch.setenv(k, v)
    out = io.StringIO()
    repl = Repl(load_settings(proj, {"model": ANTHROPIC}), console=Console(file=out, width=200, color_system=None))

    async def go() -> None:
        try:
            await asyncio.wait_for(repl.submit("go"), TIMEOUT)
        finally:
            await repl.close()

    asyncio.run(go())
    shown = out.getvalue()
    assert "parent done" in shown and len(fake_llm.requests) == 4
    assert shown.count("hook failed") == 1
    assert f"⚠ [subagent explore] {FAILED}" in shown


async def acp_turn(proj: Path) -> Client:
    client = Client()
    async with connected(client) as conn:
        sid = (await asyncio.wait_for(conn.new_session(cwd=str(proj), mcp_servers=[]), TIMEOUT)).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[text_block("go")]), TIMEOUT)
    return client


def test_acp_sends_a_childs_notice_once_as_a_marked_message(
    proj: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in provider_env(fake_llm, ANTHROPIC).items():
        monkeypatch.setenv(k, v)
    client = asyncio.run(acp_turn(proj))
    assert "parent done" in client.text() and len(fake_llm.requests) == 4
    told = [u for u in client.of(AgentMessageChunk) if "hook failed" in u.content.text]
    assert [u.content.text for u in told] == [f"\n\n> ⚠ agentcli (subagent explore): {FAILED}\n\n"]
    assert told[0].field_meta == {"agentcli": {"notice": "warning", "subagent": "explore", "toolCallId": TASK_ID}}
    assert json.dumps(told[0].model_dump(by_alias=True))  # still a valid update


def test_a_background_childs_notice_is_given_at_the_parents_next_look(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """Nobody reads a background child's events as they come: its notice waits in the parent's inbox and is given
    once, with its task id, when the parent's loop next looks (here: the turn its answer starts)."""
    failing_hook()
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Task", {"description": "look", "prompt": "survey a.py", "subagent_type": "explore",
                                            "run_in_background": True}, id="toolu_bg")]),
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})], when="read-only code explorer"),
        Reply(text="I will wait.", when="Started background task"),
        Reply(text="child done", when="a = 1"),
        Reply(text="parent done", when="<task-notification>"),
    )
    lines = run_p(proj, fake_llm, "stream-json", requests=5).lines()
    notices = [x for x in lines if x.get("subtype") == "notice"]
    assert [(n["text"], n["parent_tool_use_id"]) for n in notices] == [(FAILED, "toolu_bg")]
    assert lines[-1]["result"] == "parent done"


def test_a_tool_an_agent_file_names_but_the_child_cannot_have_is_told_once_a_session(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """`--tools Read,Task` leaves Bash out of the session: a reviewer whose file asks for Bash runs without it,
    and says so once, however many Task calls start it (here two at once)."""
    (home() / "agents").mkdir(parents=True)
    (home() / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: reviews\ntools: Read, Bash\n---\nYou review.\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    calls = [ToolCall("Task", {"description": "r", "prompt": f"review {n}", "subagent_type": "reviewer"}, id=f"t_{n}")
             for n in ("alpha", "beta")]
    fake_llm.push(Reply(tool_calls=calls), Reply(text="alpha ok", when="review alpha"),
                  Reply(text="beta ok", when="review beta"), Reply(text="parent done", when="beta ok"))
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", "stream-json", "--tools", "Read,Task"],
                   proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    notices = [x for x in run.lines() if x.get("subtype") == "notice"]
    assert [n["text"].split(": ", 1)[1] for n in notices] == [
        "'Bash' left out: not among this session's tools (its tool set, or an MCP server not connected)"]
    assert notices[0]["text"].startswith("agent reviewer (") and notices[0]["parent_tool_use_id"] in ("t_alpha",
                                                                                                      "t_beta")
    assert [t["name"] for t in fake_llm.requests[1].body["tools"]] == ["Read"]


def test_doctor_names_the_tools_an_agent_file_asks_for_that_its_subagent_cannot_have(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The same line a session's first Task call of that agent shows (by default a child starts none of its own)."""
    (home() / "agents").mkdir(parents=True)
    (home() / "agents" / "planner.md").write_text(
        "---\nname: planner\ndescription: plans\ntools: Read, Task, ExitPlanMode\n---\nYou plan.\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    doctor = agent_lines(load_settings(proj, {}))  # `agentcli doctor`'s, without its sandbox probes
    said = [ln.removeprefix("agents and presets: ") for ln in doctor if "planner" in ln]
    assert [s.split(": ", 1)[1] for s in said] == [
        "'Task', 'TaskOutput', 'TaskStop' left out: subagents may nest only 1 deep (subagent_max_depth)",
        "'ExitPlanMode' left out: never a subagent's tool"]
    fake_llm.push(Reply(tool_calls=[ToolCall("Task", {"description": "p", "prompt": "plan it",
                                                      "subagent_type": "planner"}, id="t_plan")]),
                  Reply(text="planned"), Reply(text="parent done"))
    notices = [x for x in run_p(proj, fake_llm, "stream-json", requests=3).lines() if x.get("subtype") == "notice"]
    assert [(n["text"], n["parent_tool_use_id"]) for n in notices] == [(s, "t_plan") for s in said]


def test_the_python_api_gives_a_childs_notice_inside_its_subagent_event(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in provider_env(fake_llm, ANTHROPIC).items():
        monkeypatch.setenv(k, v)
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    reviewer = AgentDefinition("x", "reviews", "You review.", tools=("Read", "ExitPlanMode"))
    fake_llm.push(Reply(tool_calls=[ToolCall("Task", {"description": "r", "prompt": "review", "subagent_type":
                                                      "reviewer"}, id="t_api")]),
                  Reply(text="reviewed"), Reply(text="parent done"))

    async def collect() -> list[AgentEvent]:
        return [ev async for ev in api.query("go", cwd=proj, model=ANTHROPIC, agents={"reviewer": reviewer})]

    events = asyncio.run(asyncio.wait_for(collect(), TIMEOUT))
    told = [ev.innermost() for ev in events if isinstance(ev, SubagentEvent)]
    assert [(agent, task, n.text) for agent, task, n in told if isinstance(n, Notice)] == [
        ("reviewer", "t_api", "agent reviewer (api): 'ExitPlanMode' left out: never a subagent's tool")]
    assert not [ev for ev in events if isinstance(ev, Notice) and "left out" in ev.text]  # not the parent's
    assert isinstance(events[-1], RunFinished) and events[-1].result.result == "parent done"


def test_a_subagent_that_cannot_start_is_told_to_the_person_not_only_the_model(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """An agent file naming a model on a provider with no key: the Task call fails (the model reads why), one notice
    tells the person, and doctor says it before any session does."""
    (home() / "agents").mkdir(parents=True)
    (home() / "agents" / "mystery.md").write_text(
        "---\nname: mystery\ndescription: m\nmodel: openrouter/some-model\n---\nYou are a mystery.\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    why = "no API key for OpenRouter"
    assert any(f"mystery.md): its subagent cannot start: {why}" in ln for ln in agent_lines(load_settings(proj, {})))
    fake_llm.push(Reply(tool_calls=[ToolCall("Task", {"description": "m", "prompt": "solve it",
                                                      "subagent_type": "mystery"}, id="t_m")]),
                  Reply(text="parent done"))
    lines = run_p(proj, fake_llm, "stream-json", requests=2).lines()
    notices = [(x["text"], x["parent_tool_use_id"]) for x in lines if x.get("subtype") == "notice"]
    assert len(notices) == 1 and notices[0][0].startswith(f"could not start: {why}") and notices[0][1] == "t_m"
    assert why in json.dumps(fake_llm.requests[1].body["messages"][-1])  # the model reads it in the Task's result


def test_a_childs_own_local_server_dropping_the_tools_is_told_as_the_childs(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The parent talks to Anthropic; the child's agent file names a model on a local OpenAI-compatible server whose
    prompt count (120 tokens for ~3,000 of tool definitions) shows the tools never reached the model. Two such
    children at once: said once."""
    (home() / "agents").mkdir(parents=True)
    (home() / "agents" / "local.md").write_text(
        "---\nname: local\ndescription: l\nmodel: openai/local-model\n---\nYou work locally.\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    calls = [ToolCall("Task", {"description": "l", "prompt": "work", "subagent_type": "local"}, id=f"t_{n}")
             for n in (1, 2)]
    fake_llm.push(Reply(tool_calls=calls), *[Reply(text="child done", usage=Usage(input_tokens=120, output_tokens=2))
                                             for _ in calls], Reply(text="parent done"))
    env = {**provider_env(fake_llm, ANTHROPIC), **provider_env(fake_llm, "openai/local-model")}
    run = agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", "stream-json"], proj, env)
    assert run.status == 0, run.stderr
    assert fake_llm.requests[1].body["model"] == "local-model"  # the child's, on the OpenAI-compatible route
    notices = [x for x in run.lines() if x.get("subtype") == "notice"]
    assert [n.get("code") for n in notices] == ["tools_dropped"] and notices[0]["parent_tool_use_id"] in ("t_1", "t_2")
