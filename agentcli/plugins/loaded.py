"""The enabled plugins as a session uses them: their skills (`plugin:skill`), their commands (`/plugin:command`)
and, for trusted ones, their hooks and MCP servers. A pinned copy that no longer matches its digest is not
loaded (one notice): what runs is what was installed."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.record import record
from agentcli.settings.extensions import plugins_installed
from agentcli.skills.discovery import SKILL_FILE, SkillSource

if TYPE_CHECKING:
    from agentcli.plugins.manifest import Manifest
    from agentcli.plugins.store import Installed


@record(frozen=False)
class Loaded:
    plugins: list[tuple[Installed, Manifest]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def skill_sources(self) -> list[SkillSource]:
        """A skills folder, or (as marketplace entries list them) one skill's own folder: then its parent is
        searched for that one skill."""
        out = []
        for p, m in self.plugins:
            for folder in m.skills:
                only = folder.name if (folder / SKILL_FILE).is_file() else ""
                label = f"plugin {p.key} {p.version or '?'}, {'trusted' if p.trusted else 'untrusted'}"
                out.append(SkillSource("plugin", label, folder.parent if only else folder,
                                       namespace=m.name, only=only, grants=p.trusted))
        return out

    def commands(self) -> dict[str, Path]:
        """`plugin:command` → its markdown file."""
        out: dict[str, Path] = {}
        for _, m in self.plugins:
            for folder in m.commands:
                files = sorted(folder.rglob("*.md")) if folder.is_dir() else [folder]
                for f in files:
                    out[f"{m.name}:{f.stem}"] = f
        return out


def load_plugins() -> Loaded:
    found = Loaded()
    if not plugins_installed():
        return found  # nothing installed: nothing read, nothing more imported
    from agentcli.errors import AgentCliError
    from agentcli.plugins import store
    from agentcli.plugins.manifest import read_manifest
    try:
        state = store.load()
    except AgentCliError as exc:
        found.notices.append(f"Plugins were not loaded: {exc.message}")
        return found
    for p in state.plugins.values():
        if not p.enabled:
            continue
        folder = Path(p.folder)
        if store.digest(store.file_digests(folder)) != p.digest:
            found.notices.append(f"Plugin {p.key} was not loaded: its pinned copy changed since install "
                                 f"(reinstall it: agentcli plugin install {p.key})")
            continue
        try:
            found.plugins.append((p, read_manifest(folder, p.entry or None)))
        except AgentCliError as exc:
            found.notices.append(f"Plugin {p.key} was not loaded: {exc.message}")
    return found
