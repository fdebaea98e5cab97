from __future__ import annotations

import pytest

from tests.fakes.fixtures import fake_llm

__all__ = ["fake_llm"]

_SCRUB = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
          "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY",
          "no_proxy")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    """No real keys, proxies or home directory leak into these tests."""
    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path))
    for name in _SCRUB:
        monkeypatch.delenv(name, raising=False)
