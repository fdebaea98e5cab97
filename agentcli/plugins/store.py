"""Where plugins live: `$AGENTCLI_HOME/plugins/` holds `state.json` (marketplaces added, plugins installed with
their pinned digests, enabled and trust states), cloned marketplaces under `marketplaces/`, and each installed
plugin's pinned copy under `installed/<plugin>@<marketplace>/<digest>/`. Only agentcli writes there, so what
runs is what the user installed: a marketplace changing later changes nothing until `update` is accepted."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.errors import ConfigError

SKIP = {".git"}


def root() -> Path:
    return paths.home() / "plugins"


@dataclass(slots=True)
class Marketplace:
    name: str
    source: str  # the path or git URL given to `marketplace add`
    kind: str  # path | git
    folder: str  # where its marketplace.json is read: the path itself, or the clone
    commit: str = ""


@dataclass(slots=True)
class Installed:
    plugin: str
    marketplace: str
    version: str
    digest: str
    folder: str  # the pinned copy
    files: dict[str, str] = field(default_factory=dict)  # relative path → SHA-256, for update's summary
    enabled: bool = True
    trusted: bool = False  # its hooks and MCP servers run only once the user trusts it
    commit: str = ""
    entry: dict[str, Any] = field(default_factory=dict)  # its marketplace entry (the manifest when it has none)

    @property
    def key(self) -> str:
        return f"{self.plugin}@{self.marketplace}"


@dataclass(slots=True)
class State:
    marketplaces: dict[str, Marketplace] = field(default_factory=dict)
    plugins: dict[str, Installed] = field(default_factory=dict)


def load() -> State:
    """The state; a missing file is empty, an unreadable one a ConfigError (never silently reset)."""
    path = root() / "state.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return State()
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} cannot be read ({exc})", hint="fix or remove it") from exc
    try:
        return State({k: Marketplace(**v) for k, v in data.get("marketplaces", {}).items()},
                     {k: Installed(**v) for k, v in data.get("plugins", {}).items()})
    except (TypeError, AttributeError) as exc:
        raise ConfigError(f"{path} is not agentcli's plugin state ({exc})", hint="fix or remove it") from exc


def save(state: State) -> None:
    from agentcli.atomicfile import atomic_write

    root().mkdir(parents=True, exist_ok=True)
    data = {"marketplaces": {k: asdict(v) for k, v in state.marketplaces.items()},
            "plugins": {k: asdict(v) for k, v in state.plugins.items()}}
    atomic_write(root() / "state.json", json.dumps(data, indent=1, sort_keys=True) + "\n", new_mode=0o600)


def file_digests(folder: Path) -> dict[str, str]:
    """Every regular file under `folder` (no links followed, `.git` left out): relative path → SHA-256 of its
    executable bit and content."""
    import hashlib

    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            h = hashlib.sha256(b"x" if os.access(path, os.X_OK) else b"-")
            h.update(path.read_bytes())
            out[path.relative_to(folder).as_posix()] = h.hexdigest()
    return out


def digest(files: dict[str, str]) -> str:
    import hashlib

    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(f"{rel}\0{files[rel]}\0".encode())
    return h.hexdigest()


def pin_copy(source: Path, key: str, pinned: str) -> Path:
    """A copy of `source` (without `.git` and links) at the pinned place for `key` and its digest."""
    import shutil

    dest = root() / "installed" / key / pinned[:16]
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(*SKIP))
    for dirpath, dirnames, filenames in os.walk(dest):
        for name in [*dirnames, *filenames]:
            if (Path(dirpath) / name).is_symlink():
                (Path(dirpath) / name).unlink()  # a link (to a file or a folder) could reach outside the pin
    return dest


def changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """What an update would change, one line per file: `+ added`, `- removed`, `~ changed`."""
    lines = [f"+ {p}" for p in sorted(new.keys() - old.keys())]
    lines += [f"- {p}" for p in sorted(old.keys() - new.keys())]
    lines += [f"~ {p}" for p in sorted(p for p in old.keys() & new.keys() if old[p] != new[p])]
    return lines


def as_dict(item: Any) -> dict[str, Any]:
    return asdict(item)
