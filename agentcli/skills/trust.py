"""Trusting a project's own skills: a cloned repository's `.claude/skills/*/SKILL.md` is text sent to the model
as instructions, so it waits for the user like the project's other files. The digest of every SKILL.md (name
and content) is recorded in `$AGENTCLI_HOME/trusted-skills.json` under the project's real path, where no
repository can write; a changed or added skill asks again."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli import paths
from agentcli.skills.discovery import SKILL_FILE, SkillSource, skill_files
from agentcli.skills.index import Index


def _file() -> Path:
    return paths.home() / "trusted-skills.json"


def digest(sources: list[SkillSource], index: Index | None = None) -> str | None:
    """One SHA-256 over the project's SKILL.md files (folder and each file's SHA-256); None when there are none.
    A file that cannot be read counts as its name alone, so making it readable later asks again."""
    import hashlib

    index = index if index is not None else Index()
    h = hashlib.sha256()
    seen = False
    for source in sources:
        for f in skill_files(source.folder):
            seen = True
            entry = index.entry(str(f))
            h.update(f"{source.label}/{f.parent.name}/{SKILL_FILE}\0{entry[1] if entry else '-'}\0".encode())
    return h.hexdigest() if seen else None


def _load() -> dict[str, str]:
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def is_trusted(root: Path, sources: list[SkillSource], index: Index | None = None) -> bool:
    """Are the project's skills absent, or unchanged since the user trusted them?"""
    found = digest(sources, index)
    return found is None or _load().get(str(root.resolve())) == found


def trust(root: Path, sources: list[SkillSource]) -> bool:
    """Record the project's skills as they are now as trusted; False when it has none."""
    from agentcli.atomicfile import atomic_write

    found = digest(sources)
    if found is None:
        return False
    data = _load()
    data[str(root.resolve())] = found
    atomic_write(_file(), json.dumps(data, indent=1, sort_keys=True) + "\n", new_mode=0o600)
    return True
