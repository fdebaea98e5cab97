"""The pure phases of compaction (agentcli.core.compaction) and the session's compaction boundary."""

from __future__ import annotations

from pathlib import Path

from agentcli.core import compaction as cz
from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session.reader import boundary
from agentcli.session.repair import repair


def exchange(i: int, size: int) -> list[Message]:
    call = ToolUseBlock(f"t{i}", "Read", {"file_path": f"src/f{i}.py"})
    return [Message("assistant", (TextBlock(f"reading {i}"), call)),
            Message("user", (ToolResultBlock(f"t{i}", f"line {i}\n" * size),))]


def conversation(n: int, size: int = 400) -> list[Message]:
    out = [Message.user("the task, verbatim")]
    for i in range(n):
        out.extend(exchange(i, size))
    return out


def test_prune_stubs_old_bulky_results_and_keeps_recent_and_latest() -> None:
    msgs = conversation(6)
    pruned, n = cz.prune(msgs, protect_tokens=cz.messages_tokens(msgs[-4:]))
    assert n == 4  # the two most recent results are protected
    stubbed = [b for m in pruned for b in m.content if isinstance(b, ToolResultBlock)]
    assert stubbed[0].content.startswith(cz.PRUNED_MARK)
    assert '"file_path": "src/f0.py"' in stubbed[0].content and "call Read again" in stubbed[0].content
    assert stubbed[-1].content == msgs[-1].content[0].content  # type: ignore[union-attr]
    assert pruned[0] is msgs[0]
    again, m = cz.prune(pruned, 0)
    assert m == 1 and again[-1] == msgs[-1]  # stubs are never re-stubbed; the latest exchange never pruned
    assert repair(again).notes == []


def test_tail_never_starts_at_tool_results() -> None:
    msgs = conversation(5)
    for budget in (0, 50, 500, 5_000, 50_000):
        start = cz.tail_start(msgs, budget)
        assert start < len(msgs) and cz.is_start(msgs[start])
    assert cz.tail_start(msgs, 10**9) == 0


def test_summary_message_carries_first_and_latest_prompts_and_first_survives_a_second_compaction() -> None:
    carried = cz.Carried(first="fix the parser", latest="and the tests", todos="- [ ] x (pending)",
                         memory=("Contents of sub/AGENTS.md …",))
    head = cz.summary_message("## Task\nparser", carried)
    text = head.text
    assert text.startswith(cz.SUMMARY_MARK) and "fix the parser" in text and "and the tests" in text
    assert "- [ ] x (pending)" in text and "sub/AGENTS.md" in text
    assert cz.first_prompt([head, Message.user("later")]) == "fix the parser"
    assert cz.prompts([head, Message.user("later")]) == ["later"]


def test_transcript_leaves_out_the_oldest_when_over_budget() -> None:
    msgs = conversation(20, size=600)
    text, dropped = cz.transcript(msgs, budget_tokens=2_000)
    assert dropped > 0 and f"[{dropped} older messages left out" in text
    assert len(text) // 4 <= 2_400
    full, none = cz.transcript(msgs[:3], budget_tokens=10**6)
    assert none == 0 and "[assistant calls Read]" in full and "the task, verbatim" in full


def test_truncate_cuts_results_then_drops_old_turns_but_keeps_the_latest_exchange() -> None:
    head = cz.summary_message("s", cz.Carried(first="task", latest=None))
    tail = conversation(4, size=2_000)[1:]
    out, dropped = cz.truncate(head, tail, budget_tokens=1_500)
    assert out[0] is head and dropped >= 2
    assert out[-1].content[0].tool_use_id == "t3"  # type: ignore[union-attr]
    assert "characters cut by compaction" in out[-1].content[0].content  # type: ignore[union-attr]
    assert repair(out).notes == []


def test_prune_of_a_150k_token_conversation_is_cheap() -> None:
    msgs = conversation(150, size=1_000)  # ~1,000 tokens a result
    assert cz.messages_tokens(msgs) > 150_000
    pruned, n = cz.prune(msgs, 40_000)
    assert n > 100 and cz.messages_tokens(pruned) < 50_000


def test_session_boundary_reads_from_the_last_valid_compaction(tmp_path: Path) -> None:
    old = [{"type": "message", "id": "a", "parent_id": None, "message": Message.user("old").to_dict()}]
    good = {"type": "compaction", "id": "c1", "parent_id": "a",
            "data": {"messages": [Message.user("summary one").to_dict()]}}
    broken = {"type": "compaction", "id": "c2", "parent_id": "c1", "data": {"messages": [{"role": "robot"}]}}
    after = {"type": "message", "id": "m", "parent_id": "c2", "message": Message.user("next").to_dict()}
    start, history = boundary([*old, good, broken, after])
    assert start == 2 and [m.text for m in history] == ["summary one"]
    assert boundary(old) == (0, [])


def _compacted(tmp_path: Path) -> tuple[Path, str, list[str]]:
    from agentcli.session.store import open_session

    (tmp_path / ".git").mkdir(exist_ok=True)
    s = open_session(tmp_path, checkpoints=False)
    assert s.writer is not None
    ids = [s.writer.message(Message.user("before the compaction")),
           s.writer.message(Message("assistant", (TextBlock("old answer"),)))]
    s.writer.record("rule", {"rule": "Bash(make:*)", "scope": "session"})
    ids.append(s.writer.record("compaction", {"messages": [Message.user("<compaction-summary> x").to_dict()],
                                              "rules": ["Bash(make:*)"], "todos": []}))
    ids.append(s.writer.message(Message("assistant", (TextBlock("after"),))))
    s.close()
    return tmp_path, s.session_id, ids


def test_resume_reads_only_from_the_last_compaction(tmp_path: Path) -> None:
    from agentcli.assembly.runtime import remembered_rules
    from agentcli.session import layout
    from agentcli.session.reader import load_from_boundary
    from agentcli.session.store import open_session

    project, sid, _ = _compacted(tmp_path)
    loaded = load_from_boundary(layout.sessions_dir(project), sid)
    assert loaded is not None and loaded.chain[0]["type"] == "compaction" and loaded.problems == []
    opened = open_session(project, resume=sid, no_persistence=True, checkpoints=False)
    assert [m.text for m in opened.history] == ["<compaction-summary> x", "after"]
    assert remembered_rules(opened) == ["Bash(make:*)"]


def test_a_rewind_to_before_the_compaction_reads_the_whole_file(tmp_path: Path) -> None:
    from agentcli.redact import Redactor
    from agentcli.session import layout
    from agentcli.session.reader import load_from_boundary
    from agentcli.session.store import open_session
    from agentcli.session.writer import SessionWriter

    project, sid, ids = _compacted(tmp_path)
    path = layout.session_file(layout.sessions_dir(project), sid)
    w = SessionWriter(path, sid, redactor=Redactor(()), leaf_id=ids[0])
    w.record("rewind", {"to": ids[0]})
    w.close()
    assert load_from_boundary(layout.sessions_dir(project), sid) is None
    opened = open_session(project, resume=sid, no_persistence=True, checkpoints=False)
    assert [m.text for m in opened.history] == ["before the compaction"]


def test_context_meter_counts_precisely_only_near_the_threshold() -> None:
    from agentcli.core.context import ContextMeter
    from agentcli.core.tokens import count_tokens

    msgs = [Message.user("word " * 800)]  # 4,000 bytes; tiktoken: ~800 tokens
    meter = ContextMeter()
    far = meter.next_request("sys", [], msgs, limit=100_000)
    assert far == meter.request_tokens("sys", [], msgs, precise=False) and 1_000 <= far <= 1_030  # bytes / 4
    near = meter.next_request("sys", [], msgs, limit=4_000)
    assert abs(near - count_tokens("word " * 800)) < 40
    meter.reported(1, 5_000)  # a provider that counts more than we do is believed
    assert meter.next_request("sys", [], msgs, limit=4_000) == 5_000
    meter.reported(1, 10)  # one that counts less (a truncating server) is not
    assert meter.next_request("sys", [], msgs, limit=4_000) == near
