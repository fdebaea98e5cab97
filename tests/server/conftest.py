"""A started `agentcli serve` (a subprocess on a free loopback port, the fake LLM behind it)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.helpers import ANTHROPIC, provider_env
from tests.fakes.server import FakeLLM

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60


class Server:
    def __init__(self, proc: subprocess.Popen[str], url: str, token: str) -> None:
        self.proc, self.url, self.token = proc, url, token

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token if token is not None else self.token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=TIMEOUT)


@pytest.fixture
def server(fake_llm: FakeLLM, tmp_path: Path) -> Iterator[Server]:
    env = {**os.environ, **provider_env(fake_llm, ANTHROPIC), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentcli", "serve", "--port", "0", "--model", ANTHROPIC],
                            env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    token = url = ""
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "listening on " in line:
            url = line.split("listening on ", 1)[1].strip()
            break
        if not line.startswith("agentcli serve:"):
            token = line.strip()
    assert url and token, lines
    token_file = Path(os.environ["AGENTCLI_HOME"]) / "server" / "token"
    assert token_file.read_text().strip() == token and token_file.stat().st_mode & 0o777 == 0o600
    try:
        yield Server(proc, url, token)
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)
        proc.stderr.close()
