"""Giving a built agent its skills and its plugins' commands: found once at start-up, fed to the registry as a
tool source, and listed for `system/init` with the custom slash commands."""

from __future__ import annotations

from pathlib import Path

from agentcli.plugins.loaded import Loaded, load_plugins
from agentcli.skills.catalog import find_skills
from agentcli.skills.source import SkillSource
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import Listed, ToolRegistry


def attach_skills(registry: ToolRegistry, ctx: ToolContext, project_root: Path,
                  plugins: Loaded | None = None, offer: bool = True) -> SkillSource | None:
    """Adds the custom commands' source and the skills' source to `registry` (commands first: a command wins over
    a skill of the same name, as the listing says); returns the skills' source, None when there are no skills,
    plugins nor anything to tell."""
    from agentcli.settings.custom_commands import load_commands
    from agentcli.skills.commands import CommandSource

    registry.sources.append(CommandSource(project_root, ctx))

    plugins = plugins if plugins is not None else load_plugins()
    found = find_skills(project_root, plugins=plugins.skill_sources())
    found.notices[:0] = plugins.notices
    plugin_commands = plugins.commands()
    commands = sorted({*load_commands(project_root), *plugin_commands})
    invocable = [name for name, s in found.skills.items() if s.user_invocable and name not in commands]
    registry.listed = Listed(tuple(found.skills), tuple((m.name, str(m.root)) for _, m in plugins.plugins),
                             tuple(commands + invocable))
    if not found.skills and not found.notices and not plugin_commands:
        return None
    source = SkillSource(found, ctx, commands=plugin_commands, offer=offer)
    registry.sources.append(source)
    return source
