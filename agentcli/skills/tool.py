"""The `Skill` tool (Claude Code's name and input: `skill`, optional `args`): loads a skill's instructions.

Its description lists the skills within the listing budget; a call returns the SKILL.md body with the folder
it lives in, so the model reads the files beside it with Read and runs its scripts with Bash, under the normal
permissions and the sandbox. While the skill is active its `allowed-tools` run without asking (never past a
deny rule: the policy checks deny first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentcli.skills.discovery import Skill
from agentcli.skills.listing import DEFAULT_BUDGET, listing
from agentcli.tools.base import ToolContext, ToolOutput

_INTRO = ("Load a skill: instructions, scripts and references for a kind of task. When a task matches a skill's "
          "description, call this tool with its name before doing the task; the files it mentions are relative "
          "to its base directory. Do not call a skill that is already loaded.")


class SkillTool:
    name = "Skill"
    read_only = True
    destructive = False
    edits_files = False

    def __init__(self, skills: Mapping[str, Skill], budget: int = DEFAULT_BUDGET) -> None:
        self.skills = dict(skills)
        listed = listing(list(self.skills.values()), budget)
        self.description = f"{_INTRO}\n\nAvailable skills:\n{listed}" if listed else _INTRO
        self.input_schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill's name, e.g. \"pdf\" or \"plugin:skill\""},
                "args": {"type": "string", "description": "Optional arguments for the skill"},
            },
            "required": ["skill"],
            "additionalProperties": False,
        }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        name = args.get("skill")
        if not isinstance(name, str) or not name.strip():
            return ToolOutput.error("`skill` must be a skill's name")
        skill = self.skills.get(name.strip().removeprefix("/"))
        if skill is None or not skill.model_invocable:
            known = ", ".join(n for n, s in self.skills.items() if s.model_invocable) or "none"
            return ToolOutput.error(f"Unknown skill {name!r}. Available skills: {known}")
        arguments = args.get("args")
        text = skill_prompt(skill, arguments if isinstance(arguments, str) else "")
        if text is None:
            return ToolOutput.error(f"The skill {skill.name}'s SKILL.md can no longer be read")
        ctx.active_skill = skill.name
        ctx.skill_allowed_tools = skill.grants()
        return ToolOutput(text, display=f"Loaded skill {skill.name} ({skill.source.label})")


def skill_prompt(skill: Skill, arguments: str = "") -> str | None:
    """What loading `skill` tells the model: where it lives, its instructions, and the user's arguments."""
    body = skill.body()
    if body is None:
        return None
    arguments = arguments.strip()
    if "$ARGUMENTS" in body:
        body = body.replace("$ARGUMENTS", arguments)
    elif arguments:
        body = f"{body}\n\nARGUMENTS: {arguments}"
    return f"Base directory for this skill: {skill.folder}\n\n{body}"
