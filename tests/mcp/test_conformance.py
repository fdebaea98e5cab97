"""Acceptance 6: the official MCP conformance suite (@modelcontextprotocol/conformance, client scenarios) drives
agentcli's client (tests/mcp/conformance_client.py). Scenarios the client is not built for (elicitation, OAuth)
and the one whose test server fails on its own are recorded in bench/RESULTS.md, not run here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import NPM_PREFIX, require

SUITE = NPM_PREFIX / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = Path(__file__).with_name("conformance_client.py")
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scenario", ["initialize", "sse-retry"])
def test_conformance_scenario(tmp_path: Path, node: str, scenario: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [node, str(require(SUITE)), "client", "--command", f"{sys.executable} {CLIENT}", "--scenario", scenario],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    report = out.stdout + out.stderr  # the suite prints its report on stderr
    assert "OVERALL: PASSED" in report, report[-4000:]
    assert ", 0 failed" in report
