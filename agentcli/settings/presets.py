"""Presets: named tool sets with a default permission mode, rules, and optionally a model and a system-prompt
addendum, as TOML data files.

Looked up by name in the project (`.agentcli/presets/NAME.toml`, once the user trusts them: agentcli.settings.trust),
then the user's (`$AGENTCLI_HOME/presets/`), then the built-in ones (`agentcli/_presets` in a wheel, `presets/` in a
checkout).

    description = "…"
    tools = ["Read", "Glob", "Grep"]
    permission_mode = "default"          # optional
    model = "…"                          # optional
    system_prompt_append = "…"           # optional
    [permissions]
    allow = […]  ask = […]  deny = […]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.errors import ConfigError
from agentcli.modes import PERMISSION_MODES
from agentcli.settings import writer

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    tools: tuple[str, ...]
    description: str = ""
    permission_mode: str | None = None
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    model: str | None = None
    system_prompt_append: str | None = None
    source: str = "builtin"
    path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def rules(self) -> dict[str, list[str]]:
        """The preset's rules by behavior, as `load_policy(preset_rules=…)` takes them."""
        return {"allow": list(self.allow), "ask": list(self.ask), "deny": list(self.deny)}


def builtin_dir() -> Path:
    return paths.builtin_presets_dir()


def search_path(project_root: Path | None) -> list[tuple[str, Path]]:
    """(source, directory), highest precedence first."""
    from agentcli.settings import trust

    dirs: list[tuple[str, Path]] = []
    if project_root is not None and trust.presets_trusted(project_root):
        # A cloned repository's preset could name any tools, mode, rules and sandbox, or pose as a built-in.
        dirs.append(("project", trust.presets_dir(project_root)))
    dirs += [("user", paths.home() / "presets"), ("builtin", builtin_dir())]
    return dirs


def load_preset(name: str, project_root: Path | None = None) -> Preset:
    """The preset called `name`. Raises ConfigError naming the ones that exist when it is not found."""
    if not _NAME.fullmatch(name):
        raise ConfigError(f"invalid preset name {name!r}")
    for source, directory in search_path(project_root):
        f = directory / f"{name}.toml"
        if f.is_file():
            return parse_preset(name, writer.load(f), source, f)
    known = ", ".join(p.name for p in list_presets(project_root)) or "none"
    if project_root is not None and (paths.project_dir(project_root) / "presets" / f"{name}.toml").is_file():
        raise ConfigError(f"the project's preset {name!r} is not trusted",
                          hint=f"read .agentcli/presets/, then: agentcli permissions trust (available: {known})")
    raise ConfigError(f"no preset named {name!r}", hint=f"available: {known}")


def list_presets(project_root: Path | None = None) -> list[Preset]:
    """Every preset by name (a project preset hides a user one, which hides a built-in one), sorted."""
    found: dict[str, Preset] = {}
    for source, directory in search_path(project_root):
        if not directory.is_dir():
            continue
        for f in sorted(directory.glob("*.toml")):
            if f.stem not in found and _NAME.fullmatch(f.stem):
                found[f.stem] = parse_preset(f.stem, writer.load(f), source, f)
    return [found[k] for k in sorted(found)]


def parse_preset(name: str, data: dict[str, Any], source: str = "builtin", path: Path | None = None) -> Preset:
    where = str(path or name)
    tools = data.get("tools")
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ConfigError(f"{where}: 'tools' must be a list of tool names")
    mode = data.get("permission_mode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise ConfigError(f"{where}: unknown permission_mode {mode!r}",
                          hint=f"use one of {', '.join(PERMISSION_MODES)}")
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise ConfigError(f"{where}: [permissions] must be a table")
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("allow", "ask", "deny"):
        items = perms.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{where}: permissions.{key} must be a list of strings")
        lists[key] = tuple(items)
    known = {"tools", "permission_mode", "permissions", "model", "system_prompt_append", "description"}
    return Preset(
        name=name,
        tools=tuple(tools),
        description=str(data.get("description", "")),
        permission_mode=mode,
        allow=lists["allow"],
        ask=lists["ask"],
        deny=lists["deny"],
        model=_opt_str(data.get("model")),
        system_prompt_append=_opt_str(data.get("system_prompt_append")),
        source=source,
        path=path,
        extra={k: v for k, v in data.items() if k not in known},
    )


def _opt_str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None
