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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentcli import paths
from agentcli.settings.projectfiles import read_inside

SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024
# The Agent Skills specification: lowercase letters, digits and hyphens, at most 64 characters; a description
# of at most 1,024 characters.
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class SkillSource:
    """One place skills are looked for: `scope` is user, project or plugin; `label` is what /skills prints."""

    scope: str
    label: str
    folder: Path
    root: Path | None = None  # a project's skills must stay inside the project once links are followed
    namespace: str = ""  # a plugin's name: its skills are `plugin:skill`


@dataclass(frozen=True, slots=True)
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
        """What runs without asking while the skill is active: its `allowed-tools`, and reading its own folder
        (the references it points the model at), never past a deny rule."""
        return (*self.allowed_tools, f"Read(//{self.folder.resolve().as_posix().lstrip('/')}/**)")

    def body(self) -> str | None:
        """The instructions below the front matter, read now (a skill edited mid-session is read as it is)."""
        raw = read_inside(self.path, self.source.root, MAX_SKILL_BYTES)
        return None if raw is None else split_front_matter(raw)[1].strip()


@dataclass(slots=True)
class Discovery:
    """What a search found: skills by name, the sources looked at, and one line per thing left out."""

    skills: dict[str, Skill] = field(default_factory=dict)
    sources: list[tuple[SkillSource, int]] = field(default_factory=list)  # (source, skills found there)
    notices: list[str] = field(default_factory=list)


def user_sources(user_home: Path | None = None) -> list[SkillSource]:
    home = user_home if user_home is not None else Path.home()
    own = paths.home() / "skills"
    return [
        SkillSource("user", "~/.claude/skills", home / ".claude" / "skills"),
        SkillSource("user", "~/.agents/skills", home / ".agents" / "skills"),
        SkillSource("user", "~/.codex/skills", home / ".codex" / "skills"),
        SkillSource("user", "$AGENTCLI_HOME/skills", own),
    ]


def project_sources(root: Path) -> list[SkillSource]:
    return [
        SkillSource("project", ".claude/skills", root / ".claude" / "skills", root),
        SkillSource("project", ".agents/skills", root / ".agents" / "skills", root),
    ]


def split_front_matter(text: str) -> tuple[str | None, str]:
    """The YAML between the opening and closing `---` lines, and the rest; (None, text) without front matter."""
    if not text.startswith("---"):
        return None, text
    first = text.find("\n")
    end = text.find("\n---", first)
    if first < 0 or end < 0 or text[3:first].strip():
        return None, text
    after = text.find("\n", end + 4)
    return text[first + 1 : end + 1], "" if after < 0 else text[after + 1 :]


def _tools(value: Any) -> tuple[str, ...] | None:
    """`allowed-tools` as Claude Code writes it: a list, or one string separated by commas or spaces (a rule's
    own spaces stay inside its parentheses). None when it is neither."""
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    if isinstance(value, str):
        return tuple(t.strip() for t in re.findall(r"[^,\s(]+(?:\([^)]*\))?", value) if t.strip())
    return None


def parse_skill(raw: str, path: Path, source: SkillSource) -> Skill | str:
    """The skill `raw` (a SKILL.md's text) describes, or why it cannot be used."""
    yaml_text, _ = split_front_matter(raw)
    if yaml_text is None:
        return "has no YAML front matter (--- name, description ---)"
    try:
        meta = yaml.load(yaml_text, Loader=_LOADER)  # a safe loader (C or Python)
    except yaml.YAMLError as exc:
        return f"has front matter that is not valid YAML ({str(exc).splitlines()[0]})"
    if not isinstance(meta, dict):
        return "has front matter that is not a table of keys"
    name = meta.get("name", path.parent.name)
    description = meta.get("description")
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > MAX_NAME:
        return f"has an invalid name {name!r} (lowercase letters, digits and hyphens, at most {MAX_NAME})"
    if not isinstance(description, str) or not description.strip():
        return "has no description (the model reads it to decide when to use the skill)"
    tools = _tools(meta.get("allowed-tools"))
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


def skill_files(folder: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [Path(e.path) / SKILL_FILE for e in entries
            if not e.name.startswith(".") and e.is_dir() and os.path.isfile(os.path.join(e.path, SKILL_FILE))]


def discover(sources: Iterable[SkillSource]) -> Discovery:
    """Every skill in `sources`, the first source holding a name winning; what is left out is a notice."""
    found = Discovery()
    for source in sources:
        count = 0
        for f in skill_files(source.folder):
            raw = read_inside(f, source.root, MAX_SKILL_BYTES)
            where = f"{source.label}/{f.parent.name}/{SKILL_FILE}"
            skill = parse_skill(raw, f, source) if raw is not None else "cannot be read (or links outside)"
            if isinstance(skill, str):
                found.notices.append(f"Skill {where} was not loaded: it {skill}")
            elif skill.name in found.skills:
                kept = found.skills[skill.name].source.label
                found.notices.append(f"Skill {where} is hidden by the skill of the same name in {kept}")
            else:
                found.skills[skill.name] = skill
                count += 1
        found.sources.append((source, count))
    return found
