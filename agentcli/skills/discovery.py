"""Finding skills: where they live, reading their front matter, and which one wins a name.

Sources, in precedence order (the first holding a name wins, as in Claude Code, where the user's own skills
win over a project's): the user's (`~/.claude/skills`, `~/.agents/skills`, `~/.codex/skills`,
`$AGENTCLI_HOME/skills`), the project's (`.claude/skills`, `.agents/skills`, only once trusted), then plugins'.
A folder is a skill when it holds `SKILL.md`; nothing is read below that level at start-up.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from agentcli.record import record
from agentcli.settings.extensions import project_skill_folders, user_skill_folders
from agentcli.settings.projectfiles import read_inside
from agentcli.skills.index import MAX_SKILL_BYTES, Index, parse_meta, split_front_matter

SKILL_FILE = "SKILL.md"
# The Agent Skills specification: lowercase letters, digits and hyphens, at most 64 characters; a description
# of at most 1,024 characters.
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024


@record
class SkillSource:
    """One place skills are looked for: `scope` is user, project or plugin; `label` is what /skills prints."""

    scope: str
    label: str
    folder: Path
    root: Path | None = None  # a project's skills must stay inside the project once links are followed
    namespace: str = ""  # a plugin's name: its skills are `plugin:skill`
    only: str = ""  # the one skill folder of `folder` this source holds (a plugin listing skills one by one)
    grants: bool = True  # may its skills' `allowed-tools` spare questions (not an untrusted plugin's)


@record
class Skill:
    name: str
    description: str
    path: Path  # the SKILL.md
    source: SkillSource
    allowed_tools: tuple[str, ...] = ()
    user_invocable: bool = True
    model_invocable: bool = True
    argument_hint: str = ""

    @property
    def folder(self) -> Path:
        return self.path.parent

    def grants(self) -> tuple[str, ...]:
        """What runs without asking while the skill is active: its `allowed-tools` (unless it came with a plugin
        the user has not trusted), and reading its own folder (the references it points the model at), never
        past a deny rule."""
        own = f"Read(//{self.folder.resolve().as_posix().lstrip('/')}/**)"
        return (*self.allowed_tools, own) if self.source.grants else (own,)

    def body(self) -> str | None:
        """The instructions below the front matter, read now (a skill edited mid-session is read as it is)."""
        raw = read_inside(self.path, self.source.root, MAX_SKILL_BYTES)
        return None if raw is None else split_front_matter(raw)[1].strip()


@record(frozen=False)
class Discovery:
    """What a search found: skills by name, the sources looked at, and one line per thing left out."""

    skills: dict[str, Skill] = field(default_factory=dict)
    sources: list[tuple[SkillSource, int]] = field(default_factory=list)  # (source, skills found there)
    notices: list[str] = field(default_factory=list)


def user_sources(user_home: Path | None = None) -> list[SkillSource]:
    return [SkillSource("user", label, folder) for label, folder in user_skill_folders(user_home)]


def project_sources(root: Path) -> list[SkillSource]:
    return [SkillSource("project", label, folder, root) for label, folder in project_skill_folders(root)]


def parse_allowed_tools(value: Any) -> tuple[str, ...] | None:
    """`allowed-tools` as Claude Code writes it: a list, or one string separated by commas or spaces (a rule's
    own spaces stay inside its parentheses). None when it is neither."""
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    if isinstance(value, str):
        return tuple(t.strip() for t in re.findall(r"[^,\s(]+(?:\([^)]*\))?", value) if t.strip())
    return None


def skill_from_meta(meta: dict[str, Any] | str, path: Path, source: SkillSource) -> Skill | str:
    """The skill a SKILL.md's front matter describes, or why it cannot be used."""
    if isinstance(meta, str):
        return meta
    name = meta.get("name", path.parent.name)
    description = meta.get("description")
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > MAX_NAME:
        return f"has an invalid name {name!r} (lowercase letters, digits and hyphens, at most {MAX_NAME})"
    if not isinstance(description, str) or not description.strip():
        return "has no description (the model reads it to decide when to use the skill)"
    tools = parse_allowed_tools(meta.get("allowed-tools"))
    if tools is None:
        return "has an allowed-tools that is neither a list nor a string"
    full = f"{source.namespace}:{name}" if source.namespace else name
    hint = meta.get("argument-hint")
    return Skill(
        full, " ".join(description.split())[:MAX_DESCRIPTION], path, source, tools,
        user_invocable=meta.get("user-invocable", True) is not False,
        model_invocable=meta.get("disable-model-invocation", False) is not True,
        argument_hint=hint if isinstance(hint, str) else "",
    )


def parse_skill(raw: str, path: Path, source: SkillSource) -> Skill | str:
    return skill_from_meta(parse_meta(raw), path, source)


def skill_files(folder: Path) -> list[Path]:
    """The SKILL.md of each folder directly under `folder` that has one (hidden folders left out)."""
    try:
        entries = sorted((e.name, e.path) for e in os.scandir(folder) if not e.name.startswith(".") and e.is_dir())
    except OSError:
        return []
    return [Path(f) for _, p in entries if os.path.isfile(f := os.path.join(p, SKILL_FILE))]


def _inside(path: Path, real_root: str | None) -> bool:
    """A project's SKILL.md must really be inside the project (a link to ~/.ssh would be sent to the model)."""
    return real_root is None or os.path.realpath(path).startswith(real_root + os.sep)


def discover(sources: Iterable[SkillSource], index: Index | None = None) -> Discovery:
    """Every skill in `sources`, the first source holding a name winning; what is left out is a notice."""
    found = Discovery()
    index = index if index is not None else Index()
    for source in sources:
        count = 0
        real_root = os.path.realpath(source.root) if source.root is not None else None
        for f in skill_files(source.folder):
            if source.only and f.parent.name != source.only:
                continue
            entry = index.entry(str(f)) if _inside(f, real_root) else None
            skill = skill_from_meta(entry[0], f, source) if entry else "cannot be read (or links outside)"
            if isinstance(skill, str):
                found.notices.append(f"Skill {source.label}/{f.parent.name}/{SKILL_FILE} was not loaded: it {skill}")
            elif skill.name in found.skills:
                kept = found.skills[skill.name].source.label
                found.notices.append(f"Skill {source.label}/{f.parent.name}/{SKILL_FILE} is hidden by the skill "
                                     f"of the same name in {kept}")
            else:
                found.skills[skill.name] = skill
                count += 1
        found.sources.append((source, count))
    index.save()
    return found
