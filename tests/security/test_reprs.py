"""The objects that hold secrets (API keys, MCP tokens, the session's secret list) never show them in their
repr: a repr reaches tracebacks, debug logs and assertion messages."""

from __future__ import annotations

from pathlib import Path

from agentcli.mcp.config import ServerConfig
from agentcli.providers.base import ProviderConfig
from agentcli.providers.profiles import Profile
from agentcli.session.checkpoint import ShadowGit
from agentcli.settings.config import Settings
from agentcli.tools.base import ToolContext

KEY = "sk-live-0123456789abcdef"


def test_no_repr_shows_a_secret(tmp_path: Path) -> None:
    holders = [
        Settings(cwd=tmp_path, secrets=(KEY,)),
        ToolContext(project_root=tmp_path, env={"OPENAI_API_KEY": KEY}, secrets=(KEY,)),
        ServerConfig("s", "http", "user", "config.toml", env={"TOKEN": KEY}, headers={"Authorization": KEY}),
        Profile("p", "P", "https://example.invalid", headers={"x-api-key": KEY}),
        ShadowGit(tmp_path / "store", tmp_path, tmp_path / "index", secrets=(KEY.encode(),)),
        ProviderConfig(name="openai", api_key=KEY),
    ]
    for holder in holders:
        assert KEY not in repr(holder), type(holder).__name__
