"""Built-in TOML data (catalog.toml, profiles.toml) read without paying for a TOML parser on every run.

Importing tomllib and parsing both files costs ~20 ms of a ~200 ms `agentcli -p` start on a slow machine. The
parsed data is kept as JSON in the package's `__pycache__` (as Python keeps bytecode there), keyed by the TOML
file's size and modification time, so an edited file is parsed again. When that directory cannot be written
(a read-only install), the TOML is simply parsed each time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.atomicfile import atomic_write


def load_builtin_toml(path: Path) -> dict[str, Any]:
    """The TOML file at `path` as a dict, from the JSON cache when it is current."""
    st = path.stat()
    cache = path.parent / "__pycache__" / f"{path.name}.{st.st_size}-{st.st_mtime_ns}.json"
    try:
        with open(cache, "rb") as f:
            data: dict[str, Any] = json.loads(f.read())
        return data
    except (OSError, ValueError):
        pass
    import tomllib

    with open(path, "rb") as f:
        data = tomllib.load(f)
    _store(cache, path.name, data)
    return data


def _store(cache: Path, source_name: str, data: dict[str, Any]) -> None:
    """Write the cache atomically; on any failure (read-only install, a value JSON cannot hold) do nothing."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return
    try:
        cache.parent.mkdir(exist_ok=True)
        for old in cache.parent.glob(f"{source_name}.*.json"):
            old.unlink(missing_ok=True)  # caches of earlier versions of the file
        atomic_write(cache, text)
    except OSError:
        pass
