"""The one place that writes config and settings TOML files, always atomically (temp file, fsync,
os.replace, fsync of the directory), so a crash leaves the old file or the new one, never half of each.

`update_table` rewrites only one `[table]` of an existing file and keeps the rest of the text (comments
included) as the user wrote it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def load(path: Path) -> dict[str, Any]:
    """The file's TOML as a dict; {} when it does not exist. Raises ConfigError when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from e
    import tomllib  # only when a file exists: the parser is a measurable share of start-up

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"invalid TOML in {path}: {e}", hint="fix or delete the file") from e


def atomic_write(path: Path, text: str, mode: int = 0o600) -> None:
    """Write `text` to `path` atomically. A new file gets `mode`; an existing one keeps its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        mode = os.stat(path).st_mode & 0o7777
    import tempfile  # imports shutil, random …: only when writing

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)
    if path.name == LOCAL_SETTINGS and path.parent.name == ".agentcli":
        _keep_out_of_git(path)


LOCAL_SETTINGS = "settings.local.toml"


def _keep_out_of_git(local: Path) -> None:
    """Personal settings stay out of git (as Claude Code's settings.local.json), whoever writes them first:
    approvals "for this project", `permissions add`, `hooks import` …"""
    ignore = local.parent / ".gitignore"
    try:
        lines = ignore.read_text(encoding="utf-8").splitlines() if ignore.exists() else []
    except OSError:
        return
    if local.name not in lines and f"/{local.name}" not in lines:
        atomic_write(ignore, "\n".join([*lines, local.name]) + "\n", mode=0o644)


def _fsync_dir(directory: Path) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def write(path: Path, data: Mapping[str, Any]) -> None:
    """Replace the whole file with `data` serialized as TOML."""
    atomic_write(path, dumps(data))


def update_table(path: Path, table: str, values: Mapping[str, Any]) -> None:
    """Set `values` in `[table]` of the file at `path` (created if missing), keeping every other line."""
    import tomllib

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    data = tomllib.loads(text) if text else {}
    current = data.get(table, {})
    if not isinstance(current, dict):
        raise ConfigError(f"{path}: '{table}' is not a table")
    merged = {**current, **values}
    new_text = _replace_table_text(text, table, merged)
    try:
        if new_text is not None and tomllib.loads(new_text).get(table) == merged:
            atomic_write(path, new_text)
            return
    except tomllib.TOMLDecodeError:
        pass
    data[table] = merged  # the table is written in a form we cannot edit in place: rewrite the file
    write(path, data)


def _replace_table_text(text: str, table: str, values: Mapping[str, Any]) -> str | None:
    lines = text.splitlines(keepends=True)
    header = re.compile(r"\s*\[\s*" + re.escape(_key(table)) + r"\s*\]\s*(#.*)?$")
    start = next((i for i, ln in enumerate(lines) if header.match(ln.rstrip("\n"))), None)
    body = "".join(f"{_key(k)} = {_value(v)}\n" for k, v in values.items() if not isinstance(v, dict))
    if start is None:
        if re.search(r"^\s*" + re.escape(_key(table)) + r"\s*[.=]", text, re.M):
            return None  # dotted keys or an inline table
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{sep}[{_key(table)}]\n{body}"
    end = start + 1
    while end < len(lines) and not lines[end].lstrip().startswith("["):
        end += 1
    tail = lines[end:]
    trailing = "\n" if tail else ""
    return "".join(lines[: start + 1]) + body + trailing + "".join(tail)


def dumps(data: Mapping[str, Any]) -> str:
    """Serialize nested dicts of str / int / float / bool / lists as TOML."""
    out: list[str] = []
    _dump_table(data, [], out)
    return "".join(out).lstrip("\n")


def _dump_table(data: Mapping[str, Any], prefix: list[str], out: list[str]) -> None:
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    if prefix and (scalars or not tables):
        out.append(f"\n[{'.'.join(_key(p) for p in prefix)}]\n")
    for k, v in scalars.items():
        out.append(f"{_key(k)} = {_value(v)}\n")
    for k, v in tables.items():
        _dump_table(v, [*prefix, k], out)


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, list | tuple):
        items = [_value(x) for x in v]
        if sum(len(i) for i in items) > 60:
            return "[\n" + "".join(f"  {i},\n" for i in items) + "]"
        return "[" + ", ".join(items) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")
