"""Claude Code's own settings files, read where they live, as layers beside agentcli's TOML ones.

    scope    Claude Code's file                          beside agentcli's
    user     $CLAUDE_CONFIG_DIR/settings.json            $AGENTCLI_HOME/config.toml
             (default ~/.claude/settings.json)
    project  <root>/.claude/settings.json                <root>/.agentcli/settings.toml
    local    <root>/.claude/settings.local.json          <root>/.agentcli/settings.local.toml

Claude Code's precedence holds between the scopes (local > project > user; `--settings` above them); within one
scope agentcli's own file is read after Claude Code's, so it wins a key both set. `--setting-sources` chooses the
scopes for both. The project's two files come with the repository, so they fall under agentcli.settings.trust
like `.agentcli/`: until trusted, they may set only harmless keys.

A key is translated to agentcli's (`modelOverrides` → `model_overrides`, `permissions.additionalDirectories` →
`additional_directories`, `env.ANTHROPIC_MODEL` → `model` …); a key agentcli does not support is reported once
as a notice and in `agentcli doctor`, never dropped silently. ~/.claude.json's MCP servers (the user's, and this
project's under `projects[<abs path>]`) are handed to agentcli.mcp.config as data (`McpSettings.claude_servers`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError

SCOPES = ("user", "project", "local")
# Claude Code keys with the same meaning in agentcli, under agentcli's name.
_SAME = {"model": "model", "modelOverrides": "model_overrides", "hooks": "hooks", "permissions": "permissions"}
_PERMISSION_KEYS = {"allow": "allow", "deny": "deny", "ask": "ask", "defaultMode": "default_mode",
                    "additionalDirectories": "additional_directories"}
# Environment variables of the `env` block that agentcli reads as settings (the same names it reads from its
# own environment, agentcli.settings.config).
_ENV_SETTINGS = {"ANTHROPIC_MODEL": "model", "CLAUDE_CODE_ENABLE_TELEMETRY": "telemetry"}
_NOT_SETTINGS = frozenset({"$schema"})  # the editor's schema reference, not a setting


def config_dir() -> Path:
    """Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else ~/.claude."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else Path.home() / ".claude"


def settings_file(scope: str, root: Path) -> Path:
    if scope == "user":
        return config_dir() / "settings.json"
    return root / ".claude" / ("settings.json" if scope == "project" else "settings.local.json")


def state_file() -> Path:
    """~/.claude.json (in `$CLAUDE_CONFIG_DIR` when that is set): the user's MCP servers, per-project state."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() / ".claude.json" if env else Path.home() / ".claude.json"


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from `path`; {} when absent. Broken JSON is a ConfigError naming the file."""
    import json

    from agentcli.settings.tomlfile import read_bytes

    raw = read_bytes(path)  # a repository's FIFO or device must not hang the start
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise ConfigError(f"{path} is not valid JSON: {err}", hint="fix the JSON") from err
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object", hint="fix or remove the file")
    return data


def translate(data: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A Claude Code settings object as an agentcli settings layer, and the keys left out with the reason."""
    out: dict[str, Any] = {}
    ignored: list[tuple[str, str]] = []
    for key, value in data.items():
        if key in _NOT_SETTINGS:
            continue
        if key == "env":
            out.update(_env(value, ignored))
        elif key == "permissions" and isinstance(value, dict):
            perms, left = _permissions(value)
            out["permissions"] = perms
            ignored += [(f"permissions.{k}", "not supported by agentcli") for k in left]
        elif key in _SAME:
            out[_SAME[key]] = value
        else:
            ignored.append((key, "not supported by agentcli"))
    return out, ignored


def _permissions(value: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    perms = {_PERMISSION_KEYS[k]: v for k, v in value.items() if k in _PERMISSION_KEYS}
    return perms, [k for k in value if k not in _PERMISSION_KEYS]


def _env(value: Any, ignored: list[tuple[str, str]]) -> dict[str, Any]:
    """The `env` block: the variables agentcli reads as settings; the others are reported (agentcli does not
    set them in its own environment or its tools')."""
    if not isinstance(value, dict):
        raise ConfigError("'env' must be an object of variable names to strings")
    out: dict[str, Any] = {}
    for name, text in value.items():
        if name in _ENV_SETTINGS:
            out[_ENV_SETTINGS[name]] = _env_value(name, text)
        elif name == "MAX_THINKING_TOKENS":
            if not str(text).strip().isdigit():
                raise ConfigError(f"'env.{name}' must be a whole number, got {text!r}")
            out["max_thinking_tokens"] = int(str(text).strip())
        else:
            ignored.append((f"env.{name}", "agentcli does not set environment variables from settings"))
    return out


def _env_value(name: str, text: Any) -> Any:
    if name == "CLAUDE_CODE_ENABLE_TELEMETRY":
        from agentcli.settings.schema import env_flag

        return env_flag(f"env.{name}", str(text))
    return text


def mcp_servers(root: Path) -> tuple[tuple[str, dict[str, Any]], ...]:
    """~/.claude.json's `mcpServers` (user scope) and `projects[<root>].mcpServers` (this project, Claude Code's
    "local" scope), as (source, object) for agentcli.mcp.config; lowest precedence first."""
    path = state_file()
    data = read_json(path)
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(data.get("mcpServers"), dict) and data["mcpServers"]:
        out.append((f"{path} (user)", data["mcpServers"]))
    projects = data.get("projects")
    project = projects.get(str(root.resolve())) if isinstance(projects, dict) else None
    if isinstance(project, dict) and isinstance(project.get("mcpServers"), dict) and project["mcpServers"]:
        out.append((f"{path} (project {root})", project["mcpServers"]))
    return tuple(out)
