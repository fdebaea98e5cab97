"""Skills in words, for `/skills`, `agentcli doctor` and `agentcli plugin list`: each source looked at, what it
holds, and what was left out."""

from __future__ import annotations

from pathlib import Path

from agentcli.skills.discovery import Discovery
from agentcli.visible import one_line


def source_lines(found: Discovery) -> list[str]:
    """One line per location searched: its label, scope and how many skills it gave."""
    return [one_line(f"{source.label} ({source.scope}): {count} skill{'s' if count != 1 else ''}"
                     + (f" — {source.folder}" if source.scope == "plugin" else ""))
            for source, count in found.sources]


def skill_lines(found: Discovery) -> list[str]:
    out = []
    for skill in found.skills.values():
        flags = [] if skill.user_invocable else ["model only"]
        if not skill.model_invocable:
            flags.append("/name only")
        if skill.allowed_tools:
            flags.append(f"allowed-tools: {', '.join(skill.allowed_tools)}")
        extra = f" [{'; '.join(flags)}]" if flags else ""
        out.append(one_line(f"/{skill.name} ({skill.source.label}){extra} — {skill.description[:100]}"))
    return out


def everything(project_root: Path) -> Discovery:
    """The skills a session here would have, installed plugins' included, with every notice."""
    from agentcli.plugins.loaded import load_plugins
    from agentcli.skills.catalog import find_skills

    plugins = load_plugins()
    found = find_skills(project_root, plugins=plugins.skill_sources())
    found.notices[:0] = plugins.notices
    return found


def doctor_lines(project_root: Path) -> list[str]:
    found = everything(project_root)
    lines = [f"skills: {line}" for line in source_lines(found)]
    lines += [f"skills: {notice}" for notice in found.notices]
    return lines
