"""The session file format: one JSON object per line, line 1 the header. See docs/session-format.md.

Records are plain dicts (fast to load, easy to extend): every one has `type`, `id`, `parent_id`, `ts`.
Messages carry `message` (Anthropic-shaped, `Message.to_dict()`) and optional `meta`; every other record
carries `data`.
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import field
from typing import Any

from agentcli.llm.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentcli.record import record
from agentcli.session.shape import clean_header, why_invalid

SCHEMA_VERSION = 1
HEADER = "session"
MESSAGE = "message"
CHECKPOINT = "checkpoint"
REWIND = "rewind"
RENAME = "rename"
RESUMED = "resumed"
REPAIR = "repair"
COMPACTION = "compaction"
RESERVED = frozenset({HEADER, MESSAGE})

Record = dict[str, Any]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Loading a long session allocates ~10 containers a record; the cyclic GC would rescan them all
    many times over (half the load time). Nothing loaded here forms cycles, so pause it meanwhile."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def new_record_id() -> str:
    return os.urandom(8).hex()


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


def encode(record: Record) -> bytes:
    """One whole line, ready for a single `os.write`."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate (a stream's "\ud800" decodes to one): escaped, it reads back
        return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def message_record(msg: Message, parent_id: str | None, meta: dict[str, Any]) -> Record:
    rec: Record = {"type": MESSAGE, "id": new_record_id(), "parent_id": parent_id, "ts": now_iso(),
                   "message": msg.to_dict()}
    if meta:
        rec["meta"] = meta
    return rec


def data_record(kind: str, data: dict[str, Any], parent_id: str | None) -> Record:
    return {"type": kind, "id": new_record_id(), "parent_id": parent_id, "ts": now_iso(), "data": data}


def to_message(rec: Record) -> Message | None:
    """The message a record holds, or None when it is not a (valid) message record: wrong-typed content
    (a number where text belongs) is invalid too, so that nothing downstream meets it."""
    if rec.get("type") != MESSAGE or not isinstance(rec.get("message"), dict):
        return None
    try:
        msg = Message.from_dict(rec["message"])
    except (KeyError, ValueError, TypeError, AttributeError):
        return None
    for block in msg.content:
        if not _well_typed(block):
            return None
    return msg


def _well_typed(block: ContentBlock) -> bool:
    """Whether a block's text fields are strings (Message.from_dict takes what the JSON holds). Unrolled: it
    runs for every block of a resumed session."""
    if isinstance(block, TextBlock):
        return type(block.text) is str
    if isinstance(block, ToolResultBlock):
        return type(block.tool_use_id) is str and type(block.content) is str
    if isinstance(block, ToolUseBlock):
        return type(block.id) is str and type(block.name) is str and _opt_str(block.raw_arguments)
    if isinstance(block, ThinkingBlock):
        return type(block.thinking) is str and _opt_str(block.signature) and _opt_str(block.provider)
    if isinstance(block, RedactedThinkingBlock):
        return type(block.data) is str and _opt_str(block.provider)
    if isinstance(block, ImageBlock):
        return (type(block.media_type) is str and type(block.data) is str and _opt_str(block.path)
                and _opt_str(block.sha256))
    return True


def _opt_str(value: object) -> bool:
    return value is None or type(value) is str




@record(frozen=False)
class Problem:
    """Something wrong in a file: `kind` is torn (last line cut short), corrupt (bad line elsewhere) or field
    (a header field of the wrong type, ignored: the line itself is kept)."""

    kind: str
    line: int
    detail: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.kind} ({self.detail})"


@record(frozen=False)
class ParsedFile:
    header: Record
    records: list[Record]
    problems: list[Problem] = field(default_factory=list)
    size: int = 0
    good_end: int = 0  # byte offset just after the last complete, valid line


def parse(raw: bytes) -> ParsedFile:
    """Parse a whole session file. Bad lines are skipped and reported, never fatal; a missing or bad
    header leaves `header` empty."""
    problems: list[Problem] = []
    records: list[Record] = []
    header: Record = {}
    pos = 0
    lineno = 0
    good_end = 0
    n = len(raw)
    while pos < n:
        nl = raw.find(b"\n", pos)
        end = n if nl < 0 else nl
        lineno += 1
        line = raw[pos:end]
        pos = end + 1
        if not line.strip():
            continue
        rec = _load(line)
        if isinstance(rec, str):
            kind = "torn" if nl < 0 else "corrupt"
            problems.append(Problem(kind, lineno, f"{len(line)} bytes {rec}"))
            continue
        if nl >= 0:
            good_end = pos
        if lineno == 1 and rec.get("type") == HEADER:
            header = rec
            if bad := clean_header(rec):
                problems.append(Problem("field", 1, f"header field(s) of the wrong type ignored: {', '.join(bad)}"))
        else:
            records.append(rec)
    if not header:
        problems.insert(0, Problem("corrupt", 1, "no session header"))
    return ParsedFile(header, records, problems, n, good_end)


_decode = json.JSONDecoder().decode


def _load(line: bytes) -> Record | str:
    """The record on a line, or why there is none."""
    try:
        rec = _decode(line.decode("utf-8"))
    except (ValueError, RecursionError):  # RecursionError: a line of ten thousand nested brackets
        return "not valid JSON"
    return why_invalid(rec) or rec
