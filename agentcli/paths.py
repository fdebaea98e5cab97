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
    # os.path on strings, not a Path per ancestor: this runs at every start, once per settings layer and part
    resolved = os.path.realpath(start)
    d = resolved
    while True:
        if os.path.exists(os.path.join(d, ".git")) or os.path.isdir(os.path.join(d, ".agentcli")):
            return Path(d)
        parent = os.path.dirname(d)
        if parent == d:
            return Path(resolved)
        d = parent


def project_slug(root: Path) -> str:
    """A file-name-safe, readable, unique name for a project path (`/home/a/my repo` → `-home-a-my-repo`)."""
    return "".join(c if c.isalnum() or c in "._" else "-" for c in str(root.resolve()))
