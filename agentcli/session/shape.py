"""The shape every reader of a session file relies on, checked once per line (no imports: the listing and
the ledger use it without loading the message model)."""

from __future__ import annotations

from typing import Any


def why_invalid(rec: object) -> str | None:
    """Why `rec` is not a record every reader can rely on (None: it is one). Readers index records by id and
    follow `parent_id`, and read `data`, `message` and `meta` as objects: a line breaking that is as bad as
    one that is not JSON (skipped and reported), never an error deep inside a reader."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    if not isinstance(rec.get("type"), str) or not isinstance(rec.get("id"), str):
        return "no string type and id"
    parent = rec.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        return "parent_id is not a string"
    for key in ("data", "message", "meta"):
        value = rec.get(key)
        if value is not None and not isinstance(value, dict):
            return f"{key} is not an object"
    return None


# Header fields and their one type (each may also be null): others are ignored (reported), never trusted.
_HEADER_TYPES: dict[str, type] = {
    "parent_session": str, "fork_record": str, "name": str, "title": str, "model": str, "provider": str,
    "base_url": str, "cwd": str, "project_root": str, "git_branch": str, "created": str, "sidechain_of": dict}


def clean_header(rec: dict[str, Any]) -> list[str]:
    """Drop the header fields of the wrong type (in place); return their names."""
    bad = [k for k, t in _HEADER_TYPES.items() if rec.get(k) is not None and not isinstance(rec[k], t)]
    for k in bad:
        del rec[k]
    return bad
