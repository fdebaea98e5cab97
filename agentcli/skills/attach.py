"""Giving a built agent its skills: found once at start-up, fed to the registry as a tool source, and listed for
`system/init` with the custom slash commands."""

from __future__ import annotations

from pathlib import Path

from agentcli.skills.catalog import find_skills
from agentcli.skills.source import SkillSource
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import Listed, ToolRegistry


def attach_skills(registry: ToolRegistry, ctx: ToolContext, project_root: Path) -> SkillSource | None:
    """Adds the skills' source to `registry`; None when there are no skills and nothing to tell."""
    from agentcli.settings.custom_commands import load_commands

    found = find_skills(project_root)
    commands = sorted(load_commands(project_root))
    invocable = [name for name, s in found.skills.items() if s.user_invocable and name not in commands]
    registry.listed = Listed(tuple(found.skills), registry.listed.plugins, tuple(commands + invocable))
    if not found.skills and not found.notices:
        return None
    source = SkillSource(found, ctx)
    registry.sources.append(source)
    return source
