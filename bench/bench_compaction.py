"""Compaction performance (issue 12).

    .venv/bin/python bench/bench_compaction.py [prune] [resume] [first] [--runs 7] [--before DIR]

- prune: the prune phase on a 150,000-token conversation (150 Read results of ~1,000 tokens and the turns
  around them), in-process: `compaction.prune` alone, and a whole prune-only compaction through the Agent with
  a provider that fails if it is called (so: no model call), session record and token counts included.
- resume: a session of 10,000 records holding 10 compactions; `open_session` in-process (load from the last
  boundary + repair), and `agentcli --resume ID` in a pseudo-terminal until the prompt is drawn: wall time and
  the CPU time its threads used until then, in turns with a fresh `agentcli` and (`--before DIR`) with an
  earlier revision's `agentcli --resume ID` (median).
- first: the first request of a fresh `--preset coding` session (TodoWrite included), as the fake server
  receives it, counted with tiktoken (cl100k); the default tool set beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
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


def bench_resume(runs: int, before: Path | None = None) -> None:
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
        found = _resume_in_pty(project, sid, Path(tmp) / "home", runs, before)
        for label, (wall, cpu, shown, shown_cpu) in found.items():
            history = f"; its history drawn: {shown:.0f} ms wall, {shown_cpu:.0f} ms CPU" if shown else ""
            row(f"{label} in a pty until the prompt is drawn (median of {runs}, interleaved)",
                f"{wall:.0f} ms wall, {cpu:.0f} ms CPU{history}",
                "≤ 300 ms" if label.startswith("`agentcli --resume") else "—")


# prompt_toolkit's prompt as it draws it (the replayed prompts, drawn by rich, start with "›" too)
PROMPT = "\x1b[0;1m›"


def _cpu_ms(pid: int) -> float:
    """CPU time so far of every thread of `pid` (from /proc/PID/task/*/schedstat, in ns)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e6


def _resume_in_pty(project: Path, sid: str, home: Path, runs: int,
                   before: Path | None) -> dict[str, tuple[float, ...]]:
    """Median wall ms and CPU ms (the process's threads, read when it is drawn) to the prompt, and until the
    resumed history is drawn too (its last line, "Resumed session"), of `agentcli --resume ID`, of a
    fresh `agentcli`, and (with `before`: an earlier revision's package tree) of that revision's `agentcli
    --resume ID`, all run in turns so that they see the same load."""
    import pexpect  # type: ignore[import-untyped]

    from bench.bench_repl import fake_server

    variants = [("`agentcli --resume ID`", ROOT, True), ("a fresh `agentcli`", ROOT, False)]
    if before is not None:
        variants.append((f"`agentcli --resume ID` before ({before.name})", before, True))
    found: dict[str, list[tuple[float, ...]]] = {label: [] for label, _, _ in variants}
    with fake_server([{"text": "hi"}]) as url:
        for _ in range(runs):
            for label, tree, resume in variants:
                env = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
                       "AGENTCLI_HOME": str(home), "TERM": "xterm-256color", "OPENAI_BASE_URL": url + "/v1",
                       "OPENAI_API_KEY": "sk-fake-bench", "PROMPT_TOOLKIT_NO_CPR": "1", "PYTHONPATH": str(tree)}
                t0 = time.perf_counter()
                args = ["-m", "agentcli", "--model", "openai/fake-model", *(["--resume", sid] if resume else [])]
                child = pexpect.spawn(sys.executable, args, cwd=str(project), env=env, dimensions=(40, 100),
                                      encoding="utf-8", timeout=30)
                child.delaybeforesend = None
                marks: dict[int, tuple[float, float]] = {}  # 0: the prompt, 1: the history: (wall, CPU)
                while len(marks) < (2 if resume else 1):
                    i = child.expect([re.escape(PROMPT), "Resumed session"])
                    marks.setdefault(i, ((time.perf_counter() - t0) * 1000, _cpu_ms(child.pid)))
                found[label].append((*marks[0], *marks.get(1, (0.0, 0.0))))
                child.sendcontrol("d")
                child.expect(pexpect.EOF)
                child.close()
    return {label: tuple(statistics.median(r[i] for r in rs) for i in range(4)) for label, rs in found.items()}


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
    ap.add_argument("--before", type=Path, help="an earlier revision's tree (git archive REV agentcli | tar -x -C "
                    "DIR), whose `agentcli --resume` is timed in turns with this one's")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| figure | value | budget |\n|---|---|---|")
    if "prune" in args.which:
        bench_prune(args.runs)
    if "resume" in args.which:
        bench_resume(args.runs, args.before)
    if "first" in args.which:
        bench_first()
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
