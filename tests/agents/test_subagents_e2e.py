"""Subagents seen from outside: the real `agentcli -p` running Task calls against the fake LLM server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentcli.session import layout
from agentcli.session.reader import load
from agentcli.session.repair import repair
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Fault, Reply, ToolCall
from tests.fakes.server import FakeLLM


def run_p(proj: Path, fake: FakeLLM, *extra: str, fmt: str = "json", env: dict[str, str] | None = None) -> Any:
    return agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", fmt, *extra], proj,
                    {**provider_env(fake, ANTHROPIC), **(env or {})})


def task(prompt: str, kind: str = "explore", call_id: str | None = None, **more: Any) -> ToolCall:
    return ToolCall("Task", {"description": "look around", "prompt": prompt, "subagent_type": kind, **more},
                    id=call_id)


def names(body: dict[str, Any]) -> list[str]:
    return sorted(t["name"] for t in body.get("tools", []))


def test_a_child_has_its_own_prompt_tools_and_history_and_its_answer_and_cost_come_back(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "def parse(): ...\n"})
    fake_llm.push(
        Reply(text="delegating", tool_calls=[task("find where parse is defined")]),
        Reply(text="parse is defined in a.py line 1", when="find where parse is defined"),
        Reply(text="It is in a.py."),
    )
    run = run_p(proj, fake_llm)
    assert run.status == 0, run.stderr
    parent, child, back = (r.body for r in fake_llm.requests)
    assert "read-only code explorer" in json.dumps(child["system"]) and "read-only code explorer" not in json.dumps(
        parent["system"])
    assert names(child) == ["Glob", "Grep", "Read"] and "Task" in names(parent)
    assert [m["role"] for m in child["messages"]] == ["user"]
    assert "delegating" not in json.dumps(child["messages"])
    assert "parse is defined in a.py line 1" in json.dumps(back["messages"][-1])
    result = run.json()
    assert result["result"] == "It is in a.py."
    assert result["usage"]["input_tokens"] == 30  # three requests of 10 input tokens: the child's counts
    (usage,) = result["modelUsage"].values()
    assert usage["inputTokens"] == 30 and abs(usage["costUSD"] - result["total_cost_usd"]) < 1e-9


def test_two_tasks_in_one_turn_run_at_once_and_answer_in_call_order(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    slow = Fault("slow_first_byte", delay_s=1.0)
    fake_llm.push(
        Reply(tool_calls=[task("alpha question", call_id="toolu_a"), task("beta question", call_id="toolu_b")]),
        Reply(text="beta answer", when="beta question", fault=slow),
        Reply(text="alpha answer", when="alpha question", fault=slow),
        Reply(text="both done"),
    )
    run = run_p(proj, fake_llm)
    assert run.status == 0, run.stderr
    children = fake_llm.requests[1:3]
    assert abs(children[0].received_at - children[1].received_at) < 0.5  # both were waiting at once
    assert fake_llm.requests[3].received_at - min(c.received_at for c in children) < 1.8
    results = [b for b in fake_llm.requests[3].body["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
    assert "alpha answer" in json.dumps(results[0]) and "beta answer" in json.dumps(results[1])


CHILD = "read-only code explorer"  # in the explore subagent's system prompt only


def parents(fake: FakeLLM) -> list[dict[str, Any]]:
    return [r.body for r in fake.requests if CHILD not in json.dumps(r.body.get("system"))]


def test_a_background_task_reports_at_a_later_turn_and_can_be_stopped(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(
        Reply(tool_calls=[task("background survey", call_id="toolu_bg", run_in_background=True)]),
        Reply(text="survey result: 3 modules", when=CHILD),
        # The parent's next reply comes late, so the child has surely finished before the turn after it.
        Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})], fault=Fault("slow_first_byte", delay_s=1.0)),
        Reply(text="noted"),
    )
    run = run_p(proj, fake_llm)
    assert run.status == 0, run.stderr
    mine = parents(fake_llm)
    assert "Started background task toolu_bg" in json.dumps(mine[1]["messages"][-1])
    assert "survey result: 3 modules" in json.dumps(mine[2]["messages"])

    fake_llm.push(
        Reply(tool_calls=[task("endless survey", call_id="toolu_long", run_in_background=True)]),
        Reply(text="never seen", when=CHILD, fault=Fault("slow_first_byte", delay_s=30)),
        Reply(tool_calls=[ToolCall("TaskStop", {"task_id": "toolu_long"})], when="Started background task"),
        Reply(text="stopped it"),
    )
    stopped = run_p(proj, fake_llm)
    assert stopped.status == 0, stopped.stderr
    assert "is stopped" in json.dumps(parents(fake_llm)[-1]["messages"][-1])
    directory = layout.sessions_dir(proj)
    sid = stopped.json()["session_id"]
    assert repair(load(directory, sid).messages()).notes == []
    shown = agentcli(["sessions", "show", sid, "--sidechain", "toolu_long"], proj)
    assert shown.status == 0 and "subagent explore" in shown.stdout, shown.stderr


def test_a_child_on_another_provider(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    (proj / ".agentcli" / "agents").mkdir(parents=True)
    (proj / ".agentcli" / "agents" / "local.md").write_text(
        "---\nname: local-helper\ndescription: answers on the local model\ntools: Read, Grep\n"
        "model: llamacpp/smollm\n---\nYou answer briefly, from a local model.\n")
    home = Path(os.environ["AGENTCLI_HOME"])
    (home / "config.toml").write_text(f'[providers.llamacpp]\nbase_url = "{fake_llm.openai_url}"\n')
    fake_llm.push(Reply(tool_calls=[task("local question", "local-helper")]),
                  Reply(text="local answer", when="local question"), Reply(text="ok"))
    run = run_p(proj, fake_llm)
    assert run.status == 0, run.stderr
    child = fake_llm.requests[1]
    assert child.path.endswith("/chat/completions") and child.body["model"] == "smollm"
    assert sorted(t["function"]["name"] for t in child.body["tools"]) == ["Grep", "Read"]
    assert fake_llm.requests[0].path.endswith("/messages")
    assert "local answer" in json.dumps(fake_llm.requests[2].body["messages"])


def test_a_child_cannot_use_what_the_parent_may_not_nor_go_deeper(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(
        Reply(tool_calls=[task("risky job", "general-purpose")]),
        Reply(tool_calls=[ToolCall("Bash", {"command": "touch pwned.txt"}),
                          ToolCall("Task", {"description": "d", "prompt": "deeper", "subagent_type": "explore"})],
              when="risky job"),
        Reply(text="could not", when="Permission"),
        Reply(text="done"),
    )
    # A rule with a specifier: a tool denied by name alone is not offered at all (Claude Code's --disallowedTools)
    run = run_p(proj, fake_llm, "--permission-mode", "bypassPermissions", "--disallowedTools", "Bash(touch:*)")
    assert not (proj / "pwned.txt").exists(), run.stderr
    child = fake_llm.requests[1].body
    assert "Task" not in names(child) and "Bash" in names(child)
    answers = json.dumps(fake_llm.requests[2].body["messages"][-1])
    assert "Unknown tool 'Task'" in answers and "denied" in answers.lower()


def test_sigkill_during_a_child_then_resume(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[task("slow child", call_id="toolu_k")]),
                  Reply(text="late", when="slow child", fault=Fault("slow_first_byte", delay_s=30)))
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= provider_env(fake_llm, ANTHROPIC)
    proc = subprocess.Popen([sys.executable, "-m", "agentcli", "-p", "go", "--model", ANTHROPIC], cwd=proj, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert fake_llm.wait_for_requests(2, 30), "the child's request never arrived"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    fake_llm.push(Reply(text="resumed fine"))
    resumed = agentcli(["-c", "-p", "carry on", "--model", ANTHROPIC, "--output-format", "json"], proj,
                       provider_env(fake_llm, ANTHROPIC))
    assert resumed.status == 0, resumed.stderr
    sent = json.dumps(fake_llm.requests[-1].body["messages"])
    assert "toolu_k" in sent and "interrupted" in sent.lower()
    sid = resumed.json()["session_id"]
    shown = agentcli(["sessions", "show", sid, "--sidechain", "toolu_k"], proj)
    assert shown.status == 0 and "slow child" in shown.stdout, shown.stderr


def test_a_subagent_defined_in_code_through_the_python_api(tmp_path: Path, fake_llm: FakeLLM) -> None:
    script = tmp_path / "api_run.py"
    script.write_text(
        "import asyncio, json, sys\n"
        "from agentcli.api import query\n"
        "from agentcli.agents.definitions import AgentDefinition\n"
        "async def main():\n"
        "    reviewer = AgentDefinition('x', 'reviews diffs', 'You are a strict reviewer.', tools=('Read',))\n"
        "    async for ev in query('go', model=sys.argv[1], agents={'reviewer': reviewer}):\n"
        "        last = ev\n"
        "    print(json.dumps({'result': last.result.result}))\n"
        "asyncio.run(main())\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[task("review this", "reviewer")]), Reply(text="lgtm", when="review this"),
                  Reply(text="reviewed"))
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= provider_env(fake_llm, ANTHROPIC)
    done = subprocess.run([sys.executable, str(script), ANTHROPIC], cwd=proj, env=env, capture_output=True,
                          text=True, timeout=60)
    assert json.loads(done.stdout)["result"] == "reviewed", done.stderr
    child = fake_llm.requests[1].body
    assert "strict reviewer" in json.dumps(child["system"]) and names(child) == ["Read"]
    assert any("reviewer" in t.get("description", "") for t in fake_llm.requests[0].body["tools"])


def test_stream_json_tags_child_messages_with_the_task_call(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[task("tagged", call_id="toolu_t")]),
                  Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})], when="tagged"),
                  Reply(text="child done", when="a.py"), Reply(text="parent done"))
    run = run_p(proj, fake_llm, fmt="stream-json")
    assert run.status == 0, run.stderr
    lines = run.lines()
    tagged = [x for x in lines if x.get("parent_tool_use_id") == "toolu_t"]
    assert {x["type"] for x in tagged} == {"assistant", "user"} and len(tagged) == 3
    assert lines[0]["subtype"] == "init" and sum(x.get("subtype") == "init" for x in lines) == 1
    assert sum(x["type"] == "result" for x in lines) == 1 and lines[-1]["result"] == "parent done"


def test_p_waits_for_a_background_task_and_its_answer_reaches_the_result(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """Issue 26, acceptance 4: the run does not end while its background child runs; the child's answer comes
    back as Claude Code's <task-notification>, the parent answers it, and the child's usage counts."""
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(
        Reply(tool_calls=[task("background survey", call_id="toolu_bg", run_in_background=True)]),
        Reply(text="survey result: 3 modules", when=CHILD, fault=Fault("slow_first_byte", delay_s=1.0)),
        Reply(text="I will wait for the survey.", when="Started background task"),
        Reply(text="The survey found 3 modules.", when="survey result: 3 modules"),
    )
    run = run_p(proj, fake_llm)
    assert run.status == 0, run.stderr
    result = run.json()
    assert result["result"] == "The survey found 3 modules.", result
    told = json.dumps(parents(fake_llm)[-1]["messages"][-1])
    assert "<task-notification>" in told and "<task-id>toolu_bg</task-id>" in told
    assert "<status>completed</status>" in told
    assert len(fake_llm.requests) == 4 and result["usage"]["input_tokens"] == 40  # the child's 10 count
    (usage,) = result["modelUsage"].values()
    assert usage["inputTokens"] == 40
