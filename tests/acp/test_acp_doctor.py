"""`agentcli doctor`'s lines about `agentcli acp` (the SDK it runs on, or why it cannot start) and `agentcli serve`
(its HTTP stack and token file state)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from agentcli.acp.doctor import doctor_lines
from agentcli.commands.doctor import serve_lines

ROOT = Path(__file__).resolve().parents[2]


def test_the_acp_line_names_the_sdk_and_protocol_version() -> None:
    from acp import PROTOCOL_VERSION

    [line] = doctor_lines()
    assert line.startswith(f"acp: agent-client-protocol {metadata.version('agent-client-protocol')}, ACP protocol "
                           f"version {PROTOCOL_VERSION}:")


def test_an_sdk_that_cannot_be_imported_is_said(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "acp"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('a broken build')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow.parent), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", "from agentcli.acp.doctor import doctor_lines; print(doctor_lines())"],
                         env=env, capture_output=True, text=True, check=True, timeout=60).stdout
    assert "cannot be imported (ImportError: a broken build): `agentcli acp` cannot start" in out


def test_the_serve_line_tells_the_token_files_state_never_the_token() -> None:
    from agentcli.server.token import ensure_token, token_file

    assert "no token yet" in serve_lines()[0] and "starlette" in serve_lines()[0]
    token, _ = ensure_token()
    assert "mode 600)" in serve_lines()[0] and token not in serve_lines()[0]
    token_file().chmod(0o644)
    assert "mode 644, readable by others: refused" in serve_lines()[0]
