"""The one place that writes config and settings files: agentcli's TOML and the `.mcp.json` shared with Claude
Code. TOML edits go through tomlkit, so the user's comments, order and layout survive (`agentcli permissions add`
changes one array, not the file); every write is atomic (agentcli.atomicfile).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.atomicfile import atomic_write
from agentcli.errors import ConfigError

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

CONFIG_MODE = 0o600  # config files may hold API keys


def load(path: Path) -> dict[str, Any]:
    """The file's TOML as a dict; {} when it does not exist. Raises ConfigError when it cannot be read."""
    from agentcli.settings.tomlfile import read_bytes

    raw = read_bytes(path)
    if raw is None:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"cannot read {path}: {e}") from e
    import tomllib  # only when a file exists: the parser is a measurable share of start-up

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"invalid TOML in {path}: {e}", hint="fix or delete the file") from e


LOCAL_SETTINGS = "settings.local.toml"


def keep_local_out_of_git(local: Path) -> None:
    """Personal settings stay out of git (as Claude Code's settings.local.json), whoever writes them first:
    approvals "for this project", `permissions add`, `hooks import` …"""
    if local.name != LOCAL_SETTINGS or local.parent.name != ".agentcli":
        return
    from agentcli.settings.projectfiles import Unreadable, read_text_regular

    ignore = local.parent / ".gitignore"
    try:  # the project's file: a FIFO there must not hang the write of a rule
        lines = (read_text_regular(ignore, 1024 * 1024) or "").splitlines()
    except Unreadable:
        return
    if local.name not in lines and f"/{local.name}" not in lines:
        atomic_write(ignore, "\n".join([*lines, local.name]) + "\n", new_mode=0o644)


def refuse_linked_project_dir(path: Path) -> None:
    """A repository can make `.agentcli` a symlink to any directory: agentcli's writes for the user (a rule
    remembered for the project, its `.gitignore`) would land there, outside the project."""
    if path.parent.name == ".agentcli" and path.parent.is_symlink():
        raise ConfigError(f"{path.parent} is a symbolic link; agentcli does not write project settings through it",
                          hint="replace it with a real directory")


def write(path: Path, data: Mapping[str, Any]) -> None:
    """Replace the whole file with `data` serialized as TOML."""
    from agentcli.settings.trust import keeping

    refuse_linked_project_dir(path)
    with keeping(path):
        atomic_write(path, dumps(data), new_mode=CONFIG_MODE)
    keep_local_out_of_git(path)


def dumps(data: Mapping[str, Any]) -> str:
    """Nested dicts of str / int / float / bool / lists as TOML text. TypeError for anything else."""
    import tomlkit

    try:
        return tomlkit.dumps(_plain(data))
    except (ValueError, tomlkit.exceptions.ConvertError) as e:
        raise TypeError(str(e)) from e


def update_table(path: Path, table: str, values: Mapping[str, Any]) -> None:
    """Set `values` in `[table]` of the file at `path` (created if missing); every other line, comment and
    blank line stays as the user wrote it. Arrays are edited in place (items appended or removed), so the
    comments between their items survive too."""
    refuse_linked_project_dir(path)
    doc = _parse(path)
    current = doc.get(table)
    if current is None:
        import tomlkit

        current = tomlkit.table()
        doc[table] = current
    elif not isinstance(current, dict):
        raise ConfigError(f"{path}: '{table}' is not a table")
    for key, value in values.items():
        old = current.get(key)
        if isinstance(old, list) and isinstance(value, list | tuple) and _edit_array(old, list(value)):
            continue
        current[key] = _plain(value)
    from agentcli.settings.trust import keeping

    with keeping(path):  # a file the user trusted stays trusted through agentcli's edit for them
        atomic_write(path, doc.as_string(), new_mode=CONFIG_MODE)
    keep_local_out_of_git(path)


def remove_key(path: Path, table: str, key: str) -> bool:
    """Delete `key` from `[table]` of the file at `path`, keeping every other line; False (the file untouched)
    when it is not there."""
    refuse_linked_project_dir(path)
    if not path.exists():
        return False
    doc = _parse(path)
    current = doc.get(table)
    if not isinstance(current, dict) or key not in current:
        return False
    del current[key]
    from agentcli.settings.trust import keeping

    with keeping(path):
        atomic_write(path, doc.as_string(), new_mode=CONFIG_MODE)
    return True


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Replace a JSON config file shared with Claude Code (a project's `.mcp.json`) with `data`, laid out as Claude
    Code writes it; a file the user trusted stays trusted through the user's own edit."""
    import json

    from agentcli.settings.trust import keeping

    with keeping(path):
        atomic_write(path, json.dumps(data, indent=2) + "\n", new_mode=0o644)


def _parse(path: Path) -> TOMLDocument:
    import tomlkit

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from e
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as e:
        raise ConfigError(f"invalid TOML in {path}: {e}", hint="fix or delete the file") from e


def _edit_array(arr: list[Any], new: list[Any]) -> bool:
    """Turn `arr` into `new` by removing and appending items; False when that cannot give `new`'s order."""
    kept = [x for x in arr if x in new]
    if kept != new[: len(kept)]:
        return False
    for i in range(len(arr) - 1, -1, -1):
        if arr[i] not in new:
            del arr[i]
    for x in new[len(kept):]:
        arr.append(_plain(x))
    return True


def _plain(v: Any) -> Any:
    """Check a value can be written as TOML (tomlkit would stringify some objects silently)."""
    if isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    raise TypeError(f"cannot write {type(v).__name__} to TOML")
