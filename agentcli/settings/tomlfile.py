"""Reading one TOML settings file: the lowest piece of agentcli.settings, which every other module of it may use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as a dict; {} when absent. A broken file is a ConfigError naming the file and the line."""
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err}") from err
    import tomllib  # only when a file exists: the parser is a measurable share of start-up

    try:
        with f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}", hint="fix or remove the file") from err
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err}") from err
