"""`agentcli sandbox run|show` and `agentcli doctor`, as a user runs them."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from tests.cli.helpers import agentcli, git_repo


def test_sandbox_run_confines_any_command(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {".env": "TOKEN=marker\n"})
    target = f"/usr/agentcli-{uuid.uuid4().hex}"
    run = agentcli(["sandbox", "run", "--", "sh", "-c", f"cat .env; touch {target}; echo in > ok; exit 7"], proj,
                   {"OPENAI_API_KEY": "sk-should-not-show"})
    assert run.status == 7
    assert "marker" not in run.stdout and "Permission denied" in run.stderr and "Read-only file system" in run.stderr
    assert not os.path.exists(target) and (proj / "ok").read_text() == "in\n"
    env = agentcli(["sandbox", "run", "--", "printenv"], proj, {"OPENAI_API_KEY": "sk-should-not-show"})
    assert "sk-should-not-show" not in env.stdout and "PATH=" in env.stdout


def test_sandbox_run_needs_a_command(tmp_path: Path) -> None:
    run = agentcli(["sandbox", "run"], tmp_path)
    assert run.status == 2 and "[usage]" in run.stderr


def test_sandbox_show_lists_what_is_protected(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {".env": "x", ".mcp.json": "{}"})
    run = agentcli(["sandbox", "show", "--sandbox", "read-only"], proj)
    assert run.status == 0
    assert "bubblewrap, read-only, network off" in run.stdout
    assert f"{proj}/.env" in run.stdout and f"{proj}/.mcp.json" in run.stdout


def test_bad_sandbox_mode_in_config_is_a_clear_error(tmp_path: Path) -> None:
    (Path(os.environ["AGENTCLI_HOME"]) / "config.toml").write_text('sandbox_mode = "off"\n')
    run = agentcli(["sandbox", "run", "--", "true"], tmp_path)
    assert run.status == 2 and "unknown sandbox mode 'off'" in run.stderr and "[bad_sandbox_mode]" in run.stderr


def test_doctor_reports_one_screen(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    run = agentcli(["doctor"], proj, {"ANTHROPIC_API_KEY": "sk-ant-doctor-secret"})
    assert run.status == 0, run.stderr
    out = run.stdout
    assert "sandbox: bubblewrap, workspace-write, network off" in out
    assert "probe (true under the sandbox): works" in out
    assert "ripgrep: " in out and "keys in environment: ANTHROPIC_API_KEY" in out
    assert "sk-ant-doctor-secret" not in out
    assert f"project: {proj}" in out and "trust: no shared settings" in out
