from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.llm.messages import Message, ToolUseBlock
from agentcli.redact import REDACTED, Redactor
from agentcli.session.export import to_json, to_markdown
from agentcli.session.reader import load
from agentcli.session.store import open_session
from tests.session.helpers import bash_turn

KEY = "sk-proj-PLANTEDkey0123456789abcdefABCDEF"
CONFIGURED = "hunter2-configured-password"
UNLISTED = "sk-ant-api03-" + "Zq9" * 20  # not given to us: the pattern net must catch it


def test_planted_secret_never_reaches_any_file(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OTHER_TOKEN", UNLISTED)
    (project / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    (project / "notes.txt").write_text("nothing here\n")
    (project / "settings.py").write_text(f"API_KEY = '{KEY}'\n")  # left out of checkpoints
    s = open_session(project, secrets=(KEY, CONFIGURED), name=f"name {CONFIGURED}")
    assert s.writer is not None
    bash_turn(s.writer, project, f"my key is {KEY} and {CONFIGURED}", "env; cat .env; echo " + UNLISTED)
    s.writer.message(Message("assistant", (ToolUseBlock("t9", "Write", {"content": KEY, CONFIGURED: 1}),)))
    s.writer.record("permission", {"input": {"command": f"curl -H 'x: {KEY}'"}})
    s.close()
    d = s.writer.path.parent
    exported = to_markdown(load(d, s.session_id)) + to_json(load(d, s.session_id))
    assert KEY not in exported and UNLISTED not in exported and REDACTED in exported
    assert REDACTED in s.writer.path.read_text()
    assert '"skipped":["settings.py"]' in s.writer.path.read_text()
    files = [p for p in home.rglob("*") if p.is_file()]
    assert len(files) > 10  # the session, its lock and index, the shadow store's objects
    for p in files:
        data = p.read_bytes()
        for secret in (KEY, CONFIGURED, UNLISTED):
            assert secret.encode() not in data, f"{secret} found in {p}"


def test_redactor_leaves_ordinary_text_alone() -> None:
    r = Redactor(("abc", "longer-secret"))
    assert r.text("task-0123456789abcdefghijklmnop and abc") == "task-0123456789abcdefghijklmnop and abc"
    assert r.text('a "longer-secret" b') == f'a "{REDACTED}" b'
    assert r.text("AIza" + "x" * 35) == REDACTED
    assert r.obj({"k": [KEY, 1, None, {"n": KEY}]}) == {"k": [REDACTED, 1, None, {"n": REDACTED}]}
    image = {"type": "base64", "media_type": "image/png", "data": "+AIza" + "b" * 35}
    assert r.obj({"source": image}) == {"source": image}  # base64 bytes are never rewritten
