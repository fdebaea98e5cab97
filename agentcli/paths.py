"""Where agentcli keeps things. `$AGENTCLI_HOME` (default `~/.agentcli`) holds config, sessions, presets."""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    env = os.environ.get("AGENTCLI_HOME")
    return Path(env).expanduser() if env else Path.home() / ".agentcli"


def user_config_file() -> Path:
    return home() / "config.toml"


def builtin_presets_dir() -> Path:
    """The presets that come with agentcli: `agentcli/_presets` in a wheel, `presets/` in a checkout."""
    pkg = Path(__file__).parent  # the package directory (this module sits at its top)
    wheel = pkg / "_presets"
    return wheel if wheel.is_dir() else pkg.parent / "presets"


def project_dir(root: Path) -> Path:
    """The project's own settings folder (`.agentcli/` at the project root)."""
    return root / ".agentcli"


def find_project_root(start: Path) -> Path:
    """The nearest ancestor holding `.git` (or `.agentcli/`); `start` itself when there is none."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists() or (d / ".agentcli").is_dir():
            return d
    return start


def project_slug(root: Path) -> str:
    """A file-name-safe, readable, unique name for a project path (`/home/a/my repo` → `-home-a-my-repo`)."""
    return "".join(c if c.isalnum() or c in "._" else "-" for c in str(root.resolve()))
