"""Where a user's extensions live (skills, custom commands, agent files, plugins, MCP servers), and whether any
is there: the check a start makes before importing the modules that read them (issue 25, speed).

Each loader takes its folders from here (agentcli.skills.discovery, agentcli.settings.custom_commands,
agentcli.agents.definitions, agentcli.plugins.loaded), so the check looks exactly where the loader looks. A check
says "something may be there" whenever a loader could find anything, an untrusted project's files included (their
loaders say they were not loaded): it only ever spares a start the import of a loader that would find nothing.
Only `os` and paths here: this module is on every start's path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli import paths
from agentcli.settings.claude import config_dir

if TYPE_CHECKING:
    from agentcli.settings.sections import Settings


def user_skill_folders(user_home: Path | None = None) -> list[tuple[str, Path]]:
    """(label, folder) of the user's skills, in precedence order: `~/.claude/skills`, `~/.agents/skills`,
    `~/.codex/skills`, `$AGENTCLI_HOME/skills`."""
    home = user_home if user_home is not None else Path.home()
    return [("~/.claude/skills", home / ".claude" / "skills"), ("~/.agents/skills", home / ".agents" / "skills"),
            ("~/.codex/skills", home / ".codex" / "skills"), ("$AGENTCLI_HOME/skills", paths.home() / "skills")]


def project_skill_folders(root: Path) -> list[tuple[str, Path]]:
    """(label, folder) of the project's skills (after the user's): `.claude/skills`, `.agents/skills`."""
    return [(".claude/skills", root / ".claude" / "skills"), (".agents/skills", root / ".agents" / "skills")]


def command_dirs(project_root: Path) -> list[tuple[str, Path]]:
    """Custom slash commands' (scope, folder) pairs, lowest precedence first."""
    return [("user", config_dir() / "commands"), ("user", paths.home() / "commands"),
            ("project", project_root / ".claude" / "commands"),
            ("project", paths.project_dir(project_root) / "commands")]


def definition_dirs(project_root: Path) -> list[tuple[str, Path]]:
    """Agent definition files' (source, folder) pairs, lowest precedence first."""
    return [("user", config_dir() / "agents"), ("user", paths.home() / "agents"),
            ("project", project_root / ".claude" / "agents"),
            ("project", paths.project_dir(project_root) / "agents")]


def plugin_state_file() -> Path:
    """The record of installed plugins (agentcli.plugins.store): without it, no plugin is installed."""
    return paths.home() / "plugins" / "state.json"


def plugins_installed() -> bool:
    return plugin_state_file().exists()


def skills_present(root: Path, user_home: Path | None = None) -> bool:
    """May a skills folder hold a skill (trusted or not)?"""
    folders = [*user_skill_folders(user_home), *project_skill_folders(root)]
    return any(os.path.isdir(folder) for _, folder in folders)


def commands_present(root: Path) -> bool:
    return any(os.path.isdir(folder) for _, folder in command_dirs(root))


def agent_files_present(root: Path) -> bool:
    return any(os.path.isdir(folder) for _, folder in definition_dirs(root))


MCP_KEY = "mcp_servers"
_TOML_LAYERS = ("user", "project", "local")  # the settings files agentcli.mcp.config.load reads `mcp_servers` from


def mcp_configured(settings: Settings) -> bool:
    """May agentcli.mcp.config find a server (or a problem, or an untrusted server to tell of)? `.mcp.json`,
    `--mcp-config`, ~/.claude.json's servers, or a settings file with `[mcp_servers]` (plugins' servers are
    asked of the plugins)."""
    m = settings.mcp
    if m.config or m.claude_servers:
        return True
    if m.strict_config:  # only --mcp-config's servers are read
        return False
    if os.path.lexists(settings.project_root / ".mcp.json"):
        return True
    return any(_may_hold(settings, name) for name in _TOML_LAYERS)


def _may_hold(settings: Settings, layer: str) -> bool:
    """Does the settings file of `layer` hold `mcp_servers`? The settings loader read it already and noted its
    keys (a withheld one too); a file it did not read in full (--setting-sources) counts when it exists."""
    found = [s for s in settings.sources if s.name == layer]
    if not found:  # settings not made by the loader: ask agentcli.mcp.config itself
        return True
    source = found[0]
    partly = source.state == "not loaded" or (layer == "user" and not settings.loads("user"))
    if partly:
        return os.path.lexists(source.path)
    return MCP_KEY in source.taken or any(key == MCP_KEY for key, _ in source.ignored)
