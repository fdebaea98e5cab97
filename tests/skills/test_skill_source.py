"""The skills' tool source on its own: the Skill tool, `/name`, and how long a skill's allowed-tools hold."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentcli.skills.catalog import find_skills
from agentcli.skills.source import SkillSource
from agentcli.tools.base import ToolContext
from tests.skills.helpers import place, write_skill


def test_allowed_tools_hold_until_the_next_prompt(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_skill(home / ".claude/skills", "maker", "makes", extra="allowed-tools: Bash(make *)\n")
    ctx = ToolContext(project_root=tmp_path)
    source = SkillSource(find_skills(tmp_path, user_home=home), ctx)

    async def prompt(text: str) -> str | None:
        expanded = await source.expand(text) if text.startswith("/") else None
        await source.attachments(text)
        return expanded

    assert asyncio.run(prompt("/maker all")) is not None
    assert ctx.active_skill == "maker" and ctx.skill_allowed_tools[0] == "Bash(make *)"
    assert asyncio.run(prompt("something else")) is None
    assert ctx.active_skill is None and ctx.skill_allowed_tools == ()
    asyncio.run(source.tool.run({"skill": "maker"}, ctx))
    assert ctx.skill_allowed_tools[0] == "Bash(make *)"


def test_the_skill_tool_refuses_unknown_and_model_disabled_skills(tmp_path: Path) -> None:
    home = tmp_path / "home"
    place(home / ".claude/skills", "brand-guidelines")
    write_skill(home / ".claude/skills", "manual", "only by hand", extra="disable-model-invocation: true\n")
    ctx = ToolContext(project_root=tmp_path)
    source = SkillSource(find_skills(tmp_path, user_home=home), ctx)
    assert "manual" not in source.tool.description and "brand-guidelines" in source.tool.description
    out = asyncio.run(source.tool.run({"skill": "manual"}, ctx))
    assert out.is_error and "Available skills: brand-guidelines" in out.content
    assert asyncio.run(source.tool.run({"skill": ""}, ctx)).is_error
    assert asyncio.run(source.expand("/manual now")) is not None  # the user may still run it
