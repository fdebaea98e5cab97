"""Suite-wide isolation: every test gets its own AGENTCLI_HOME and sees no real API keys or provider env."""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

import pytest

import agentcli
from agentcli.assembly.firstrun import CONFIG_ENV_VARS
from agentcli.settings.config import SECRET_ENV_VARS

pytest_plugins = ["tests.fakes.fixtures"]

# pytest rewrites every test module's asserts and compiles it at import; with PYTHONDONTWRITEBYTECODE set (as on
# these machines) nothing of that was kept, so each worker redid it on every run (~5 s CPU apiece). Set before the
# test modules are imported, this keeps pytest's rewritten .pyc files (tests/**/__pycache__, ignored by git).
sys.dont_write_bytecode = False


def pytest_sessionstart(session: pytest.Session) -> None:
    """Byte-compile agentcli once, before the workers start.

    Hundreds of tests start `python -m agentcli`; with PYTHONDONTWRITEBYTECODE set (as on these machines) and an
    editable install, each of those processes would compile every agentcli module it imports from source (~0.1 s
    CPU apiece). compileall writes the .pyc files whatever that variable says, and skips the up-to-date ones;
    a module edited later is recompiled in memory as before (its .pyc no longer matches its source).
    """
    if not hasattr(session.config, "workerinput"):  # the xdist controller, or a run without workers
        compileall.compile_dir(Path(agentcli.__file__).parent, quiet=1)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("agentcli-home")
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    # Claude Code's user files (~/.claude/settings.json, ~/.claude.json) are read as settings: never the real ones
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))
    for var in {*SECRET_ENV_VARS, *CONFIG_ENV_VARS, "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY",
                "https_proxy", "http_proxy", "all_proxy", "ANTHROPIC_MODEL", "MAX_THINKING_TOKENS",
                "CLAUDE_CODE_ENABLE_TELEMETRY"}:
        monkeypatch.delenv(var, raising=False)
    # A run's exit waits 1 s for its last export, and an export gives up after 1.5 s: a user's budget, which a CI
    # runner at load 16 can miss (nothing arrives, and a test checking what was exported fails). The tests wait
    # for the collector's answer instead (bounded); those that test the budgets set their own (test_otlp_exit.py).
    monkeypatch.setenv("OTEL_BSP_EXPORT_TIMEOUT", "30000")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "30")
    return home
