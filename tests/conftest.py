"""Suite-wide isolation: every test gets its own AGENTCLI_HOME and sees no real API keys or provider env."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.assembly.firstrun import CONFIG_ENV_VARS
from agentcli.settings.config import SECRET_ENV_VARS

pytest_plugins = ["tests.fakes.fixtures"]


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("agentcli-home")
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    for var in {*SECRET_ENV_VARS, *CONFIG_ENV_VARS, "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY",
                "https_proxy", "http_proxy", "all_proxy"}:
        monkeypatch.delenv(var, raising=False)
    return home
