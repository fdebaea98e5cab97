"""Reading one TOML settings file: the lowest piece of agentcli.settings, which every other module of it may use."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError
from agentcli.settings.projectfiles import read_regular

MAX_BYTES = 1024 * 1024


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as a dict; {} when absent. A broken file is a ConfigError naming the file and the line."""
    raw = read_bytes(path)
    if raw is None:
        return {}
    import tomllib  # only when a file exists: the parser is a measurable share of start-up

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path} is not valid TOML: {err}", hint="fix or remove the file") from err


def read_bytes(path: Path) -> bytes | None:
    """A settings file's bytes; None when there is none. A repository can put a FIFO or a device where a settings
    file belongs: that is a ConfigError naming it, not a start-up that never ends."""
    if not os.path.lexists(path):
        return None
    raw = read_regular(path, MAX_BYTES + 1)
    if raw is None or len(raw) > MAX_BYTES:
        raise ConfigError(f"cannot read {path}: not a readable regular file of at most {MAX_BYTES // 1024} KiB",
                          hint="replace it with a settings file, or remove it")
    return raw
