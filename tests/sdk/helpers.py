"""Driving agentcli with the real Claude Agent SDK (claude-agent-sdk from PyPI) against the fake LLM server.

`cli_path` is a small executable that runs `python -m agentcli` from this checkout; the SDK passes it the
environment of the test (AGENTCLI_HOME a temp dir, from tests/conftest.py) plus `options.env` (the fake's URL
and a fake key).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions

from tests.cli.helpers import ANTHROPIC, git_repo, provider_env
from tests.fakes.server import FakeLLM

MODEL = ANTHROPIC


def wrapper(directory: Path) -> Path:
    """The `cli_path` the SDK starts: this interpreter running agentcli from this checkout."""
    path = directory / "agentcli-for-sdk"
    root = Path(__file__).resolve().parents[2]
    path.write_text(f"#!/bin/sh\nPYTHONPATH={root}${{PYTHONPATH:+:$PYTHONPATH}} exec {sys.executable} "
                    f"-m agentcli \"$@\"\n")
    path.chmod(0o755)
    return path


@dataclass
class Sdk:
    """A project, the wrapper and the fake server: `options(...)` builds ClaudeAgentOptions for them."""

    proj: Path
    cli: Path
    fake: FakeLLM
    stderr: list[str] = field(default_factory=list)

    def options(self, **kw: Any) -> ClaudeAgentOptions:
        env = {**provider_env(self.fake, MODEL), **kw.pop("env", {})}
        return ClaudeAgentOptions(cli_path=self.cli, cwd=self.proj, model=kw.pop("model", MODEL), env=env,
                                  stderr=self.stderr.append, **kw)

    def sent(self, index: int) -> str:
        """The messages of the fake's request `index`, as JSON text."""
        return json.dumps(self.fake.requests[index].body["messages"])


def make_sdk(tmp_path: Path, fake: FakeLLM, files: dict[str, str] | None = None) -> Sdk:
    proj = git_repo(tmp_path / "proj", files or {"notes.txt": "alpha\n"})
    return Sdk(proj, wrapper(tmp_path), fake)


@dataclass
class Raw:
    """agentcli in stream-json mode driven by hand (for what the SDK never sends)."""

    proc: subprocess.Popen[str]

    def send(self, obj: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        self.proc.stdin.flush()

    def read_until(self, pred: Any) -> list[dict[str, Any]]:
        """Lines read until one satisfies `pred` (that one included); fails at EOF."""
        assert self.proc.stdout is not None
        seen: list[dict[str, Any]] = []
        for line in self.proc.stdout:
            obj = json.loads(line)
            seen.append(obj)
            if pred(obj):
                return seen
        raise AssertionError(f"stdout ended before the expected line; read {seen}")

    def finish(self) -> tuple[int, list[dict[str, Any]], str]:
        """Close stdin; the exit status, the remaining stdout lines and stderr."""
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, [json.loads(x) for x in out.splitlines() if x.strip()], err


def raw(sdk: Sdk, *extra: str) -> Raw:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    env.update(provider_env(sdk.fake, MODEL))
    proc = subprocess.Popen(
        [str(sdk.cli), "--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
         "--model", MODEL, *extra],
        cwd=sdk.proj, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    return Raw(proc)


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None,
            "session_id": ""}
