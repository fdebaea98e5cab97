"""The session's skills: every source searched in order, the project's held back until trusted."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agentcli.skills import trust
from agentcli.skills.discovery import Discovery, SkillSource, discover, project_sources, skill_files, user_sources
from agentcli.skills.index import Index


def find_skills(project_root: Path, *, user_home: Path | None = None,
                plugins: Iterable[SkillSource] = ()) -> Discovery:
    """The skills this session may use. Untrusted project skills are one notice, not loaded."""
    project = project_sources(project_root)
    index = Index()
    if trust.is_trusted(project_root, project, index):
        return discover([*user_sources(user_home), *project, *plugins], index)
    found = discover([*user_sources(user_home), *plugins], index)
    names = sorted({f.parent.name for s in project for f in skill_files(s.folder)})
    found.notices.append(
        f"This project's skills ({', '.join(names)}) are not trusted, so they were not loaded. Read them, then "
        "trust them with /skills trust (REPL) or agentcli plugin trust-skills")
    return found
