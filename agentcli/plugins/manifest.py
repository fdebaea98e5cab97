"""A plugin's manifest and where its parts are: what `plugin.json` says, with Claude Code's default folders."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError
from agentcli.settings.projectfiles import MAX_PLUGIN_FILE, Unreadable, read_text_regular

MANIFESTS = (".claude-plugin/plugin.json", ".codex-plugin/plugin.json")
NAME_RE = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")


@dataclass(frozen=True, slots=True)
class Manifest:
    name: str
    version: str
    description: str
    root: Path
    commands: tuple[Path, ...]
    agents: tuple[Path, ...]
    skills: tuple[Path, ...]
    hooks: Path | None
    mcp_servers: dict[str, Any]


def _paths(root: Path, value: Any, default: str) -> tuple[Path, ...]:
    """A manifest's path or list of paths (relative, `./…`, never outside the plugin), else the default folder."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    out = [root / default] if (root / default).exists() else []
    for item in items:
        if not isinstance(item, str):
            continue
        path = (root / item).resolve()
        if not path.is_relative_to(root.resolve()):
            raise ConfigError(f"plugin path {item!r} leaves the plugin's folder",
                              hint="a plugin's parts must be inside it")
        out.append(path)
    return tuple(dict.fromkeys(out))


def _mcp(root: Path, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        servers = value.get("mcpServers", value)
        return dict(servers) if isinstance(servers, dict) else {}
    path = root / value if isinstance(value, str) else root / ".mcp.json"
    if not path.resolve().is_relative_to(root.resolve()) or not path.is_file():
        return {}
    try:  # a plugin's file: a link to a device or a FIFO must not hang the read
        data = json.loads(read_text_regular(path, MAX_PLUGIN_FILE) or "")
    except (Unreadable, ValueError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc})") from exc
    servers = data.get("mcpServers", data) if isinstance(data, dict) else {}
    return dict(servers) if isinstance(servers, dict) else {}


def read_manifest(root: Path, entry: dict[str, Any] | None = None) -> Manifest:
    """The plugin in folder `root`; a ConfigError says what is wrong with it. Without a plugin.json, its
    marketplace `entry` is the manifest (Claude Code's `"strict": false`)."""
    found = next((root / m for m in MANIFESTS if (root / m).is_file()), None)
    if found is None and entry is None:
        raise ConfigError(f"{root} has no .claude-plugin/plugin.json", hint="is this a plugin's folder?")
    if found is None:
        data: Any = entry
        found = root / "(marketplace entry)"
    else:
        try:
            data = json.loads(read_text_regular(found, MAX_PLUGIN_FILE) or "")
        except (Unreadable, ValueError) as exc:
            raise ConfigError(f"{found} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{found} is not a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ConfigError(f"{found} has no valid name ({name!r})", hint="lowercase letters, digits and hyphens")
    hooks = data.get("hooks")
    hooks_path = root / hooks if isinstance(hooks, str) else root / "hooks" / "hooks.json"
    return Manifest(
        name, str(data.get("version") or ""), str(data.get("description") or ""), root,
        _paths(root, data.get("commands"), "commands"), _paths(root, data.get("agents"), "agents"),
        _paths(root, data.get("skills"), "skills"),
        hooks_path if hooks_path.is_file() and hooks_path.resolve().is_relative_to(root.resolve()) else None,
        _mcp(root, data.get("mcpServers")),
    )
