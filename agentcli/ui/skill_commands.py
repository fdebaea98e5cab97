"""`/skills` in the REPL: where skills are looked for, what each source holds, and trusting the project's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.ui.commands import command

if TYPE_CHECKING:
    from agentcli.ui.host import ReplHost as Repl


@command("skills", "Agent Skills: sources, names, trust the project's", "[trust]")
async def _skills(repl: Repl, args: str) -> None:
    from agentcli.skills import trust
    from agentcli.skills.catalog import find_skills
    from agentcli.skills.discovery import project_sources
    from agentcli.skills.report import skill_lines, source_lines

    if args.strip() == "trust":
        if trust.trust(repl.root, project_sources(repl.root)):
            repl.renderer.notice("This project's skills are trusted as they are now; /clear starts a session "
                                 "that offers them.")
        else:
            repl.renderer.notice("This project has no skills (.claude/skills, .agents/skills) to trust.")
        return
    if args.strip():
        repl.renderer.notice("Usage: /skills [trust]", style="yellow")
        return
    found = find_skills(repl.root)
    lines = ["Sources:", *(f"  {ln}" for ln in source_lines(found)), "Skills:",
             *(f"  {ln}" for ln in skill_lines(found) or ["(none)"])]
    lines += [f"  ! {n}" for n in found.notices]
    repl.renderer.notice("\n".join(lines))


def skill_names(repl: Repl) -> list[tuple[str, str]]:
    """(name, description) of the skills `/name` runs, for completion and /help (the session's agent's)."""
    agent = repl.agent
    if agent is None:
        return []
    listed = agent.registry.listed
    return [(name, "skill") for name in listed.slash_commands if name in listed.skills]
