"""A cache of what each SKILL.md's front matter says, so start-up reads and parses only skills that changed.

Kept in `$AGENTCLI_HOME/cache/skills.json`: per SKILL.md path, its stat key (device, inode, size, mtime and
ctime in nanoseconds; ctime cannot be set from user space, so an edit always shows) with the parsed front
matter (or why it is unusable) and the file's SHA-256 (for the project's trust). Unreadable or foreign cache
content is ignored and rebuilt.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.settings.projectfiles import read_regular

MAX_SKILL_BYTES = 256 * 1024
_KEYS = ("name", "description", "allowed-tools", "user-invocable", "disable-model-invocation", "argument-hint")
VERSION = 1


def _file() -> Path:
    return paths.home() / "cache" / "skills.json"


def stat_key(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


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


def parse_meta(raw: str) -> dict[str, Any] | str:
    """The front matter keys skills use, or why there is none to use."""
    yaml_text, _ = split_front_matter(raw)
    if yaml_text is None:
        return "has no YAML front matter (--- name, description ---)"
    import yaml  # only when a skill is new or changed: start-up with the cache warm never imports it

    try:
        meta = yaml.load(yaml_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # a safe loader
    except yaml.YAMLError as exc:
        return f"has front matter that is not valid YAML ({str(exc).splitlines()[0]})"
    if not isinstance(meta, dict):
        return "has front matter that is not a table of keys"
    odd = next((k for k in _KEYS if k in meta and not _plain(meta[k])), None)
    if odd is not None:
        return f"has an {odd} that is neither a list nor a string" if odd == "allowed-tools" else \
            f"has a {odd} that is not text, a flag or a list of text"
    return {k: meta[k] for k in _KEYS if k in meta}


def _plain(value: Any) -> bool:
    """JSON can hold it as YAML gave it (a date or a set would not round-trip through the cache)."""
    if isinstance(value, str | bool | int | float) or value is None:
        return True
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class Index:
    """The cache, loaded once per search and written back only when something changed."""

    def __init__(self) -> None:
        self.changed = False
        try:
            data = json.loads(_file().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        ok = isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("files"), dict)
        self.files: dict[str, Any] = data["files"] if ok else {}
        self.seen: set[str] = set()

    def entry(self, path: str) -> tuple[dict[str, Any] | str, str] | None:
        """(front matter or the reason it is unusable, SHA-256) of `path`, or None when it cannot be read."""
        key = stat_key(path)
        if key is None:
            return None
        self.seen.add(path)
        cached = self.files.get(path)
        if isinstance(cached, list) and len(cached) == 3 and cached[0] == key:
            return cached[1], cached[2]
        data = read_regular(path, MAX_SKILL_BYTES)
        if data is None:
            return None
        import hashlib

        meta = parse_meta(data.decode("utf-8", errors="replace"))
        digest = hashlib.sha256(data).hexdigest()
        self.files[path] = [key, meta, digest]
        self.changed = True
        return meta, digest

    def save(self) -> None:
        """Written when an entry changed; entries for files no longer seen go with that write."""
        if not self.changed:
            return
        from agentcli.atomicfile import atomic_write

        files = {p: v for p, v in self.files.items() if p in self.seen}
        try:
            _file().parent.mkdir(parents=True, exist_ok=True)
            atomic_write(_file(), json.dumps({"version": VERSION, "files": files}), new_mode=0o600)
        except OSError:
            return  # a cache that cannot be written costs the next start a re-read, nothing else
