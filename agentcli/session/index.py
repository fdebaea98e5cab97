"""Listing a project's sessions fast: a cache (`.index.json`) of per-session summaries.

The cache is only a cache: each entry remembers the file's size, mtime and how far it was read, so a grown
file is read from that offset on (files are append-only) and anything odd means a re-read. Delete it at
will; `list_sessions` rebuilds it.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from agentcli.atomicfile import atomic_write
from agentcli.session import layout
from agentcli.session.shape import clean_header, why_invalid

INDEX_NAME = ".index.json"
_VERSION = 2  # 2: base_url
_PROMPT_CHARS = 200


@dataclass(slots=True)
class SessionSummary:
    id: str
    path: str
    created: str = ""
    updated: float = 0.0  # file mtime, seconds since the epoch
    name: str | None = None
    model: str = ""
    provider: str = ""  # the reconnect key (`--provider`): a profile or a wire format ("openai")
    provider_label: str = ""  # what the run named it, when not that ("llamacpp"): see `shown_provider`
    base_url: str | None = None  # the provider's base URL (never a key): what `-c` / `-r` reconnect to
    git_branch: str | None = None
    cwd: str = ""
    first_prompt: str = ""
    turns: int = 0
    replies: int = 0  # assistant messages: a session with none (e.g. the server was down) is not listed
    records: int = 0
    parent_session: str | None = None
    fork_record: str | None = None
    size: int = 0
    mtime_ns: int = 0
    offset: int = 0

    @property
    def shown_provider(self) -> str:
        """The provider's name as `-p`'s init line gave it."""
        return self.provider_label or self.provider

    @property
    def worth_listing(self) -> bool:
        """Has a model reply, or is a fork (its history lives in its parent)."""
        return self.replies > 0 or self.parent_session is not None

    @property
    def title(self) -> str:
        fallback = f"(fork of {self.parent_session[:8]})" if self.parent_session else "(no prompt yet)"
        return self.name or self.first_prompt.split("\n", 1)[0][:80] or fallback


def list_sessions(directory: Path) -> list[SessionSummary]:
    """Every session in a project directory, most recently updated first."""
    cache = _load_cache(directory)
    out: list[SessionSummary] = []
    changed = False
    for sid, entry in layout.session_ids(directory):
        try:
            st = entry.stat()
        except FileNotFoundError:  # removed since the directory was read (`sessions rm`, a discarded session)
            continue
        summary = cache.get(sid)
        if summary is None or summary.size != st.st_size or summary.mtime_ns != st.st_mtime_ns:
            summary = _refresh(Path(entry.path), sid, summary, st.st_size, st.st_mtime_ns)
            changed = True
        out.append(summary)
    if changed or len(out) != len(cache):
        _save_cache(directory, out)
    out.sort(key=lambda s: s.updated, reverse=True)
    return out


def _refresh(path: Path, sid: str, old: SessionSummary | None, size: int, mtime_ns: int) -> SessionSummary:
    if old is None or size < old.offset:
        old = SessionSummary(sid, str(path))
    try:
        with path.open("rb") as f:
            f.seek(old.offset)
            chunk = f.read()
    except OSError:
        chunk = b""
    end = chunk.rfind(b"\n") + 1
    for line in chunk[:end].splitlines():
        _scan_line(old, line)
    old.offset += end
    old.size, old.mtime_ns, old.updated = size, mtime_ns, mtime_ns / 1e9
    return old


def _scan_line(s: SessionSummary, line: bytes) -> None:
    """Update a summary from one line; json-decodes only the few kinds of line that matter."""
    if line.startswith(b'{"type":"message"'):
        s.records += 1
        if b'"role":"assistant"' in line:
            s.replies += 1
        if b'"role":"user"' in line and b'"type":"text"' in line:
            rec = json_object(line)
            msg = rec.get("message") if rec and why_invalid(rec) is None else None
            blocks = msg.get("content") if isinstance(msg, dict) else None
            text = "".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
                           and isinstance(b.get("text"), str)) if isinstance(blocks, list) else ""
            if text:
                s.turns += 1
                s.first_prompt = s.first_prompt or text[:_PROMPT_CHARS]
        return
    rec = json_object(line)
    if rec is None or why_invalid(rec) is not None:
        return
    kind = rec.get("type")
    data: dict[str, Any] = rec.get("data") or {}
    if kind == "session":
        clean_header(rec)
        s.created = str(rec.get("created", rec.get("ts", "")))
        s.name = rec.get("name") or None
        s.model, s.provider = str(rec.get("model", "")), str(rec.get("provider", ""))
        s.provider_label = str(rec.get("provider_label") or "")
        s.base_url = rec.get("base_url") or None
        s.git_branch, s.cwd = rec.get("git_branch"), str(rec.get("cwd", ""))
        s.parent_session, s.fork_record = rec.get("parent_session"), rec.get("fork_record")
        inherited = rec.get("fork_turns")
        s.turns += inherited if isinstance(inherited, int) and not isinstance(inherited, bool) and inherited > 0 else 0
        return
    s.records += 1
    if kind == "rename":
        s.name = str(data["name"]) if data.get("name") else None
    elif kind in ("resumed", "model_switch"):
        s.model = str(data.get("model") or s.model)
        s.provider = str(data.get("provider") or s.provider)
        s.provider_label = str(data.get("provider_label") or "")
        if "base_url" in data:
            s.base_url = str(data["base_url"]) if data["base_url"] else None


def json_object(line: bytes) -> dict[str, Any] | None:
    """One JSONL line as a dict; None for a torn, invalid or non-object line."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: brackets nested thousands deep
        return None
    return rec if isinstance(rec, dict) else None


def _load_cache(directory: Path) -> dict[str, SessionSummary]:
    try:
        raw = json.loads((directory / INDEX_NAME).read_bytes())
        if raw.get("version") != _VERSION:
            return {}
        names = {f.name for f in fields(SessionSummary)}
        return {k: SessionSummary(**{n: v for n, v in e.items() if n in names}) for k, e in raw["sessions"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return {}


def _save_cache(directory: Path, summaries: list[SessionSummary]) -> None:
    body = {"version": _VERSION, "sessions": {s.id: asdict(s) for s in summaries}}
    with contextlib.suppress(OSError):  # a read-only store still lists, just without the cache
        # ASCII (a lone surrogate too); private, as the sessions are: it holds their first prompts.
        atomic_write(directory / INDEX_NAME, json.dumps(body, separators=(",", ":")), new_mode=0o600)
