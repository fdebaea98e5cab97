"""A scripted agent turn on a real SessionWriter: what the loop does, without a model."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session.writer import SessionWriter


def bash_turn(w: SessionWriter, cwd: Path, prompt: str, command: str, n: int = 0) -> None:
    """user prompt → assistant Bash call → checkpoint → run it for real → result → final answer."""
    w.message(Message.user(prompt))
    call = ToolUseBlock(f"toolu_{n}_{abs(hash(command)) % 10**8}", "Bash", {"command": command})
    w.message(Message("assistant", (TextBlock("running it"), call)), model="m1")
    asyncio.run(w.checkpoint(call.id, "Bash"))
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, check=False)
    w.message(Message("user", (ToolResultBlock(call.id, proc.stdout + proc.stderr, proc.returncode != 0),)))
    w.end_turn()
    w.message(Message("assistant", (TextBlock(f"done {n}"),)), model="m1")
    w.end_turn()
    asyncio.run(w.settle())  # as the loop does before the run's result


def text_turn(w: SessionWriter, prompt: str, answer: str) -> tuple[str, str]:
    u = w.message(Message.user(prompt))
    a = w.message(Message("assistant", (TextBlock(answer),)), model="m1")
    w.end_turn()
    return u, a
