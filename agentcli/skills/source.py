"""Skills as a tool source of the registry: the `Skill` tool, `/name args` for a skill the user may invoke (in
the REPL, `-p` and the Agent SDK alike, through `ToolRegistry.attach`), and discovery's notices."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agentcli.errors import AgentCliError
from agentcli.llm.messages import ContentBlock
from agentcli.skills.discovery import Discovery
from agentcli.skills.tool import SkillTool, skill_prompt
from agentcli.tools.base import PromptSource, Tool, ToolContext


class SkillSource(PromptSource):
    def __init__(self, found: Discovery, ctx: ToolContext, budget: int | None = None,
                 commands: Mapping[str, Path] | None = None, offer: bool = True) -> None:
        self.found = found
        self.ctx = ctx
        self.commands = dict(commands or {})  # a plugin's commands, `plugin:command` → its markdown file
        self.offer = offer  # False: the Skill tool is denied by name or left out of `--tools` (/name still works)
        self.tool = SkillTool(found.skills) if budget is None else SkillTool(found.skills, budget)
        self._notices = [("warning", n) for n in found.notices]
        self._just_expanded = False

    def tools(self) -> list[Tool]:
        return [self.tool] if self.found.skills and self.offer else []

    async def attachments(self, text: str) -> list[ContentBlock]:
        """Asked for every user prompt (after `expand`): a new prompt ends the skill loaded before it, so its
        `allowed-tools` stop sparing questions; a `/skill` prompt keeps the one it just loaded."""
        if self._just_expanded:
            self._just_expanded = False
        else:
            self.ctx.active_skill = None
            self.ctx.skill_allowed_tools = ()
        return []

    async def expand(self, text: str) -> str | None:
        name, _, arguments = text[1:].partition(" ")
        if name in self.commands:
            return await _command(name, self.commands[name], arguments, self.ctx, self._notices)
        skill = self.found.skills.get(name)
        if skill is None or not skill.user_invocable:
            return None
        prompt = skill_prompt(skill, arguments)
        if prompt is None:
            raise AgentCliError(f"the skill {name}'s SKILL.md can no longer be read")
        self.ctx.active_skill = skill.name
        self.ctx.skill_allowed_tools = skill.grants()
        self._just_expanded = True
        return prompt


async def _command(name: str, path: Path, arguments: str, ctx: ToolContext,
                   notices: list[tuple[str, str]]) -> str:
    """A plugin's command as Claude Code runs it: the markdown body, `$ARGUMENTS` filled in, its `!`command``s
    run as Bash calls the session decides (a plugin's `allowed-tools` grant nothing: agentcli.skills.commands)."""
    from agentcli.settings.custom_commands import MAX_FILE_BYTES, CustomCommand, parse_front_matter
    from agentcli.settings.projectfiles import read_inside
    from agentcli.skills.commands import with_shell_output

    raw = read_inside(path, None, MAX_FILE_BYTES)
    if raw is None:
        raise AgentCliError(f"the command /{name} ({path}) can no longer be read")
    meta, body = parse_front_matter(raw)
    command = CustomCommand(name, body.strip(), path, "plugin", meta.get("description", ""),
                            allowed_tools=meta.get("allowed-tools", ""))
    return await with_shell_output(command, arguments, ctx, notices)
