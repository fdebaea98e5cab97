from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own AGENTCLI_HOME and no colour preference from the outside."""
    home = tmp_path / "agentcli-home"
    home.mkdir()
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home
