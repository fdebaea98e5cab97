"""The usage ledger: tokens and cost of every model request, read from the session files themselves (there is
no separate database to drift or corrupt).

Each assistant message record carries its `usage`, `model` and (since this ledger) `cost_usd` in `meta`; older
records are priced from the catalog. A session's provider is its header's, changed by `resumed` and
`model_switch` records. Subagent transcripts (sidechains) count too, once each; forks count only the records in
their own file, so nothing is counted twice.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentcli.session import layout
from agentcli.session.index import json_object as _json
from agentcli.session.shape import why_invalid

GROUPS = ("day", "project", "model", "provider")
_SINCE = re.compile(r"^(\d+)([mhdw])$")
_UNIT_S = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass(slots=True)
class Entry:
    """One model request."""

    day: str
    project: str
    model: str
    provider: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float


@dataclass(slots=True)
class Row:
    key: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, e: Entry) -> None:
        self.requests += 1
        self.input_tokens += e.input_tokens
        self.output_tokens += e.output_tokens
        self.cache_read_tokens += e.cache_read_tokens
        self.cache_write_tokens += e.cache_write_tokens
        self.cost_usd += e.cost_usd

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cost_usd": round(self.cost_usd, 6), "tokens": self.tokens}


def parse_since(text: str | None, now: float | None = None) -> str | None:
    """`7d`, `24h`, `90m`, `2w` or a date (`2026-11-01`) as the ISO timestamp entries must be at or after."""
    if not text:
        return None
    now = time.time() if now is None else now
    m = _SINCE.match(text.strip())
    if m:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now - int(m.group(1)) * _UNIT_S[m.group(2)]))
    if re.match(r"^\d{4}-\d{2}-\d{2}$", text.strip()):
        return text.strip()
    raise ValueError(f"--since {text!r}: use a duration like 7d, 24h, 90m, 2w or a date like 2026-11-01")


def entries(since: str | None = None, root: Path | None = None) -> Iterator[Entry]:
    """Every model request in every session file under `root` (default: all projects), at or after `since`."""
    base = root or layout.projects_root()
    for dirpath, _, files in os.walk(base):
        for name in files:
            if name.endswith(layout.SUFFIX):
                yield from _file_entries(Path(dirpath) / name, since)


def summarize(found: Iterator[Entry], by: str) -> tuple[list[Row], Row]:
    if by not in GROUPS:
        raise ValueError(f"--by {by!r}: use one of {', '.join(GROUPS)}")
    rows: dict[str, Row] = {}
    total = Row("total")
    for e in found:
        rows.setdefault(getattr(e, by), Row(getattr(e, by))).add(e)
        total.add(e)
    ordered = sorted(rows.values(), key=lambda r: r.key if by == "day" else (-r.cost_usd, -r.tokens, r.key))
    return ordered, total


def _file_entries(path: Path, since: str | None) -> Iterator[Entry]:
    try:
        f = path.open("rb")
    except OSError:
        return
    with f:
        header = _json(f.readline())
        if header is None or header.get("type") != "session":
            return
        project = Path(str(header.get("project_root") or path.parent.name)).name
        provider = str(header.get("provider") or "")
        for line in f:
            # Cheap test first: only messages with usage and provider changes matter.
            if b'"usage"' not in line and b'"provider"' not in line:
                continue
            rec = _json(line)
            if rec is None or why_invalid(rec) is not None:
                continue
            kind = rec.get("type")
            if kind in ("resumed", "model_switch"):
                provider = str((rec.get("data") or {}).get("provider") or provider)
                continue
            meta = rec.get("data") if kind == "compaction" else rec.get("meta")  # a summarising request
            if kind not in ("message", "compaction") or not isinstance(meta, dict) \
                    or not isinstance(meta.get("usage"), dict):
                continue
            ts = str(rec.get("ts") or "")
            if since is not None and ts < since:
                continue
            yield _entry(meta, ts, project, provider)


def _entry(meta: dict[str, Any], ts: str, project: str, provider: str) -> Entry:
    u = meta["usage"]
    model = str(meta.get("model") or "unknown")
    i, o, cr, cw = (_int(u.get(k)) for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                                             "cache_write_tokens"))
    cost = meta.get("cost_usd")
    if not isinstance(cost, int | float):
        from agentcli.llm.messages import Usage
        from agentcli.providers import catalog

        cost = catalog.cost_usd(model, Usage(i, o, cr, cw), provider=provider)
    return Entry(ts[:10], project, model, provider, i, o, cr, cw, float(cost))


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0
