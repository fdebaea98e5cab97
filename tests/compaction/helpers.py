"""Shared set-up of the compaction acceptance tests: a project with large files, a window in the config, and
a fake server that answers the summariser's requests by itself."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentcli.session import layout
from agentcli.session.records import Record, parse
from tests.fakes.script import Reply

SUMMARISER = "You compact a coding agent's conversation"
SUMMARY = "## Task\nfix the parser\n## Decisions\nnone\n## Files\nsrc/big_0.py read\n## Done\nread files\n" \
          "## Next\nkeep reading\n## Open errors\nnone"
TASK = "Read every module under src/ and tell me which one defines parse_header — TASK-MARKER-7f3a"


def is_summary_request(body: dict[str, Any]) -> bool:
    return SUMMARISER in json.dumps(body)


def summariser(path: str, body: dict[str, Any]) -> Reply | None:
    """The fake's responder: summary requests get a summary, everything else the script."""
    return Reply(text=SUMMARY) if is_summary_request(body) else None


def big_project(root: Path, files: int = 6, lines: int = 500) -> Path:
    """`files` modules of ~`lines` lines each (about 3,000 tokens a file)."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    for i in range(files):
        body = "\n".join(f"def function_{i}_{n}(value):  # module {i} line {n}\n    return value + {n}"
                         for n in range(lines // 2))
        (root / "src" / f"big_{i}.py").write_text(body + "\n")
    (root / ".git").mkdir(exist_ok=True)
    return root


def set_window(window: int, limit: int | None = None) -> None:
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    text = f"model_context_window = {window}\n"
    if limit is not None:
        text += f"model_auto_compact_token_limit = {limit}\n"
    (home / "config.toml").write_text(text)


def session_records(project: Path) -> list[Record]:
    (path,) = layout.sessions_dir(project).glob("*.jsonl")
    return parse(path.read_bytes()).records


def kinds(records: list[Record], kind: str) -> list[Record]:
    return [r for r in records if r.get("type") == kind]
