"""The shape every reader of a session file relies on, checked once per line (no imports: the listing and
the ledger use it without loading the message model)."""

from __future__ import annotations

from typing import Any


def why_invalid(rec: object) -> str | None:
    """Why `rec` is not a record every reader can rely on (None: it is one). Readers index records by id and
    follow `parent_id`, and read `data`, `message` and `meta` as objects: a line breaking that is as bad as
    one that is not JSON (skipped and reported), never an error deep inside a reader. (Unrolled, `type() is`:
    it runs for every line of a resumed session, and json makes exact dicts and strs.)"""
    if type(rec) is not dict:
        return "not a JSON object"
    if type(rec.get("type")) is not str or type(rec.get("id")) is not str:
        return "no string type and id"
    value = rec.get("parent_id")
    if value is not None and type(value) is not str:
        return "parent_id is not a string"
    value = rec.get("message")
    if value is not None and type(value) is not dict:
        return "message is not an object"
    value = rec.get("data")
    if value is not None and type(value) is not dict:
        return "data is not an object"
    value = rec.get("meta")
    if value is not None and type(value) is not dict:
        return "meta is not an object"
    return None


# Header fields and their one type (each may also be null): others are ignored (reported), never trusted.
_HEADER_TYPES: dict[str, type] = {
    "parent_session": str, "fork_record": str, "name": str, "title": str, "model": str, "provider": str,
    "provider_label": str,
    "base_url": str, "cwd": str, "project_root": str, "git_branch": str, "created": str, "sidechain_of": dict,
    "fork_turns": int}


def clean_header(rec: dict[str, Any]) -> list[str]:
    """Drop the header fields of the wrong type (in place); return their names."""
    bad = [k for k, t in _HEADER_TYPES.items() if rec.get(k) is not None and not isinstance(rec[k], t)]
    for k in bad:
        del rec[k]
    return bad
