"""Compaction performance (issue 12).

    .venv/bin/python bench/bench_compaction.py [prune] [resume] [first] [--runs 7]

- prune: the prune phase on a 150,000-token conversation (150 Read results of ~1,000 tokens and the turns
  around them), in-process: `compaction.prune` alone, and a whole prune-only compaction through the Agent with
  a provider that fails if it is called (so: no model call), session record and token counts included.
- resume: a session of 10,000 records holding 10 compactions; `open_session` in-process (load from the last
  boundary + repair), and `agentcli --resume ID` in a pseudo-terminal until the prompt is back (median).
- first: the first request of a fresh `--preset coding` session (TodoWrite included), as the fake server
  receives it, counted with tiktoken (cl100k); the default tool set beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def row(name: str, value: str, target: str) -> None:
    print(f"| {name} | {value} | {target} |", flush=True)


def conversation(results: int = 150, lines: int = 52) -> list[Any]:
    from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

    body = "".join(f"    value_{n} = compute(value_{n - 1}, {n})  # step {n}\n" for n in range(lines))
    out = [Message.user("refactor the compute pipeline")]
    for i in range(results):
        out.append(Message("assistant", (TextBlock(f"Reading module {i}."),
                                         ToolUseBlock(f"t{i}", "Read", {"file_path": f"src/m{i}.py"}))))
        out.append(Message("user", (ToolResultBlock(f"t{i}", body),)))
    return out


class NoModel:
    """A provider that must never be asked: the prune phase makes no model call."""

    name = "none"

    def stream(self, request: Any) -> AsyncIterator[Any]:
        raise AssertionError("the prune phase called the model")

    async def aclose(self) -> None:
        return None


def bench_prune(runs: int) -> None:
    from agentcli.core import compaction as cz
    from agentcli.core import compactor
    from agentcli.core.loop import Agent, AgentOptions
    from agentcli.core.permissions import DenyingApprover, SimplePolicy
    from agentcli.core.tokens import message_tokens
    from agentcli.tools.base import ToolContext
    from agentcli.tools.registry import ToolRegistry

    msgs = conversation()
    tokens = sum(message_tokens(m) for m in msgs)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        cz.prune(msgs, 48_000)
        times.append((time.perf_counter() - t0) * 1000)
    row(f"prune phase, {tokens:,}-token conversation (tiktoken), `compaction.prune` (median of {runs})",
        f"{statistics.median(times):.1f} ms (min {min(times):.1f})", "≤ 20 ms, no model call")

    async def whole() -> float:
        agent = Agent(provider=NoModel(), registry=ToolRegistry([]), policy=SimplePolicy(), approver=DenyingApprover(),
                      ctx=ToolContext(project_root=ROOT), history=msgs,
                      options=AgentOptions(model="m", provider_name="none", auto_compact_limit=120_000))
        agent.context_tokens()  # the counts a running session already has
        t0 = time.perf_counter()
        async for ev in compactor.compact(agent, "auto", "threshold"):
            del ev
        return (time.perf_counter() - t0) * 1000

    wholes = [asyncio.run(whole()) for _ in range(max(3, runs // 2))]
    row("prune-only compaction through the Agent (record written, new size counted), no model call",
        f"{statistics.median(wholes):.1f} ms", "—")


def compacted_session(project: Path, records: int = 10_000, compactions: int = 10) -> str:
    from agentcli.core.compaction import Carried, summary_message
    from agentcli.session.store import open_session
    from bench.bench_sessions import _messages

    s = open_session(project, checkpoints=False)
    assert s.writer is not None
    every = records // (compactions + 1)
    written = i = done = 0
    while written < records:
        s.writer.message(_messages(i), model="m")
        written += 1
        i += 1
        if done < compactions and written >= every * (done + 1) and i % 3 == 0:  # at a user prompt
            tail = [_messages(i + k) for k in range(3)]
            history = [summary_message("## Task\nthe task\n## Next\nmore", Carried("the task", None)), *tail]
            s.writer.record("compaction", {"trigger": "auto", "reason": "threshold", "phases": ["summarise"],
                                           "messages": [m.to_dict() for m in history]})
            written += 1
            done += 1
            i += 3
    s.close()
    return s.session_id


def bench_resume(runs: int) -> None:
    from agentcli.session.store import open_session

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENTCLI_HOME"] = str(Path(tmp) / "home")
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        sid = compacted_session(project)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            opened = open_session(project, resume=sid, no_persistence=True, checkpoints=False)
            times.append((time.perf_counter() - t0) * 1000)
        assert opened.history[0].text.startswith("<compaction-summary>")
        row("resume, 10,000 records with 10 compactions, `open_session` (in-process, median)",
            f"{statistics.median(times):.0f} ms ({len(opened.history)} messages loaded)", "—")
        wall, cpu, fresh = _resume_in_pty(project, sid, Path(tmp) / "home", runs)
        row("`agentcli --resume ID` in a pty until the prompt is back (median; CPU of the whole process, which "
            "also exits)", f"{wall:.0f} ms wall, {cpu:.0f} ms CPU (a fresh `agentcli` to its prompt, interleaved: "
            f"{fresh:.0f} ms)", "≤ 300 ms")


def _resume_in_pty(project: Path, sid: str, home: Path, runs: int) -> tuple[float, float, float]:
    """Median wall ms to the prompt of `agentcli --resume ID`, its median CPU ms, and (interleaved, same load)
    the median wall ms of a fresh `agentcli` to its prompt."""
    import resource

    import pexpect  # type: ignore[import-untyped]

    from bench.bench_repl import AGENTCLI, fake_server

    walls, cpus, fresh = [], [], []
    with fake_server([{"text": "hi"}]) as url:
        env = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}, "AGENTCLI_HOME": str(home),
               "TERM": "xterm-256color", "OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "sk-fake-bench",
               "PROMPT_TOOLKIT_NO_CPR": "1"}
        for _ in range(runs):
            for resume in (True, False):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                args = ["--model", "openai/fake-model", *(["--resume", sid] if resume else [])]
                child = pexpect.spawn(AGENTCLI, args, cwd=str(project), env=env, dimensions=(40, 100),
                                      encoding="utf-8", timeout=30)
                child.delaybeforesend = None
                if resume:
                    child.expect("Resumed session")
                child.expect("›")
                (walls if resume else fresh).append((time.perf_counter() - t0) * 1000)
                child.sendcontrol("d")
                child.expect(pexpect.EOF)
                child.close()
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if resume:
                    cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return statistics.median(walls), statistics.median(cpus), statistics.median(fresh)


def bench_first() -> None:
    from tests.fakes.script import Reply
    from tests.fakes.server import FakeLLM, request_tokens

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "AGENTCLI_HOME": str(Path(tmp) / "home"), "OPENAI_API_KEY": "sk-fake-bench"}
        for label, extra in (("--preset coding (with TodoWrite)", ["--preset", "coding"]), ("no preset", [])):
            with FakeLLM([Reply(text="hi")]) as fake:
                env["OPENAI_BASE_URL"] = fake.openai_url
                import subprocess

                subprocess.run([sys.executable, "-m", "agentcli", "-p", "hi", "--model", "openai/gpt-4.1", *extra],
                               cwd=project, env=env, check=True, capture_output=True)
                body = fake.requests[0].body
            tools = [t["function"]["name"] for t in body.get("tools", [])]
            from agentcli.core.tokens import count_tokens

            raw = count_tokens(json.dumps(body))
            row(f"first request, fresh session, {label}: {len(tools)} tools",
                f"{request_tokens(body):,} tokens of text ({raw:,} counting the JSON body whole) "
                f"({json.dumps(tools)})", "≤ 5,000 tokens")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("which", nargs="*", default=["prune", "resume", "first"])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| figure | value | budget |\n|---|---|---|")
    if "prune" in args.which:
        bench_prune(args.runs)
    if "resume" in args.which:
        bench_resume(args.runs)
    if "first" in args.which:
        bench_first()
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
