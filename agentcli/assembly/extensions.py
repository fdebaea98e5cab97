"""Giving a built agent the user's plugins, skills and custom commands, each room imported only when something of
it is configured (agentcli.settings.extensions says where they live): a project with none of them starts without
their modules (issue 25, speed) and behaves as it did with them, notices included."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.settings import extensions as where
from agentcli.tools.base import PromptSource, ToolContext
from agentcli.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentcli.plugins.loaded import Loaded
    from agentcli.settings.config import Settings
    from agentcli.skills.commands import CommandSource


def with_plugins(settings: Settings) -> tuple[Settings, Loaded | None, list[str]]:
    """`settings` with the enabled plugins' hooks and agents added, the plugins, and their notices; (settings,
    None, []) when no plugin was ever installed."""
    if not where.plugins_installed():
        return settings, None, []
    from agentcli.plugins.loaded import load_plugins
    from agentcli.plugins.parts import agent_definitions, hook_layers

    plugins = load_plugins()
    plugin_hooks, notices = hook_layers(plugins)
    plugin_agents, agent_warnings = agent_definitions(plugins)
    hooks = replace(settings.hooks, layers=(*settings.hooks.layers, *plugin_hooks))
    return replace(settings, hooks=hooks, agents=(*settings.agents, *plugin_agents)), plugins, notices + agent_warnings


class CommandsOnUse(PromptSource):
    """The custom commands' source while no command folder exists: a `/name` prompt looks again, and from the
    first folder on it is agentcli.skills.commands.CommandSource's (which reads the files at each prompt, so a
    command written mid-session runs, as before)."""

    def __init__(self, project_root: Path, ctx: ToolContext) -> None:
        self.root = project_root
        self.ctx = ctx
        self._notices = []
        self._inner: CommandSource | None = None

    async def expand(self, text: str) -> str | None:
        if self._inner is None:
            if not where.commands_present(self.root):
                return None
            from agentcli.skills.commands import CommandSource

            self._inner = CommandSource(self.root, self.ctx)
        return await self._inner.expand(text)

    def notices(self) -> list[tuple[str, str]]:
        return self._inner.notices() if self._inner is not None else []


def attach_extensions(registry: ToolRegistry, ctx: ToolContext, project_root: Path, plugins: Loaded | None,
                      offer: bool) -> None:
    """agentcli.skills.attach.attach_skills when a plugin, a skills folder or a command folder is there; else
    only the commands' stand-in (what attach_skills finds then is nothing: no skill, no notice, nothing listed)."""
    if plugins is None and not where.skills_present(project_root) and not where.commands_present(project_root):
        registry.sources.append(CommandsOnUse(project_root, ctx))
        return
    from agentcli.skills.attach import attach_skills

    attach_skills(registry, ctx, project_root, plugins, offer)
