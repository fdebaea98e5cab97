from __future__ import annotations

from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session.repair import INTERRUPTED, repair


def _call(i: str) -> ToolUseBlock:
    return ToolUseBlock(i, "Bash", {"command": "ls"})


def test_dangling_tool_call_at_end_gets_interrupted_result() -> None:
    msgs = [Message.user("go"), Message("assistant", (_call("a"), _call("b")))]
    r = repair(msgs)
    assert r.tail is not None
    assert r.messages[-1] == r.tail
    assert [(b.tool_use_id, b.is_error, b.content) for b in r.tail.content if isinstance(b, ToolResultBlock)] == [
        ("a", True, INTERRUPTED), ("b", True, INTERRUPTED)]


def test_partial_results_are_completed_in_call_order() -> None:
    msgs = [Message.user("go"), Message("assistant", (_call("a"), _call("b"))),
            Message("user", (ToolResultBlock("b", "ok"),)), Message("assistant", (TextBlock("done"),))]
    r = repair(msgs)
    assert r.tail is None
    res = r.messages[2].content
    assert [b.tool_use_id for b in res if isinstance(b, ToolResultBlock)] == ["a", "b"]
    assert res[0] == ToolResultBlock("a", INTERRUPTED, True)


def test_roles_are_validated_and_merged() -> None:
    msgs = [Message("assistant", (TextBlock("orphan start"),)), Message("assistant", (TextBlock("again"),)),
            Message.user("q1"), Message.user("q2"), Message("user", (ToolResultBlock("zz", "orphan"),)),
            Message("user", ())]
    r = repair(msgs)
    roles = [m.role for m in r.messages]
    assert roles == ["user", "assistant", "user"]
    assert r.messages[1].text == "orphan startagain"
    assert r.messages[2].text == "q1q2"
    assert not any(isinstance(b, ToolResultBlock) for m in r.messages for b in m.content)
    assert r.notes


def test_valid_transcript_is_unchanged() -> None:
    msgs = [Message.user("go"), Message("assistant", (_call("a"),)), Message("user", (ToolResultBlock("a", "x"),)),
            Message("assistant", (TextBlock("ok"),))]
    r = repair(msgs)
    assert r.messages == msgs and not r.notes and r.tail is None


def test_assistant_after_unanswered_call_gets_results_between() -> None:
    msgs = [Message.user("go"), Message("assistant", (_call("a"),)), Message("assistant", (TextBlock("hm"),))]
    r = repair(msgs)
    assert [m.role for m in r.messages] == ["user", "assistant", "user", "assistant"]
