"""The hook contract piece by piece: matchers, what exit statuses and JSON output mean, configuration errors."""

from __future__ import annotations

import json

import pytest

from agentcli.errors import ConfigError
from agentcli.hooks.config import parse_hooks
from agentcli.hooks.matcher import matches
from agentcli.hooks.output import combine, interpret
from agentcli.hooks.process import Finished


@pytest.mark.parametrize(("matcher", "target", "expected"), [
    ("", "Bash", True), ("*", "mcp__x__y", True), ("Bash", "Bash", True), ("Bash", "BashOutput", False),
    ("Edit|Write", "Write", True), ("Edit|Write", "NotebookEdit", False), ("Notebook.*", "NotebookEdit", True),
    ("mcp__github__.*", "mcp__github__list", True), ("mcp__github__.*", "mcp__gitlab__list", False),
    ("(", "Bash", False), ("Bash", None, False), ("startup", "startup", True),
])
def test_matchers(matcher: str, target: str | None, expected: bool) -> None:
    assert matches(matcher, target) is expected


def done(code: int | None, out: str = "", err: str = "", timed_out: bool = False) -> Finished:
    return Finished(code, out, err, 3, timed_out)


def test_exit_2_blocks_a_tool_with_stderr_for_the_model() -> None:
    label, out = interpret("PreToolUse", "PreToolUse:Bash", done(2, err="no rm\n"))
    assert label == "blocking" and out.permission == "deny" and out.reason == "no rm" and out.block


def test_other_exit_codes_are_non_blocking_errors_shown_to_the_user() -> None:
    label, out = interpret("PreToolUse", "PreToolUse:Bash", done(1, err="boom"))
    assert label == "error" and out.permission is None and not out.block
    assert out.messages == ["PreToolUse:Bash hook failed (exit 1): boom"]


def test_plain_stdout_is_context_only_where_claude_code_adds_it() -> None:
    assert interpret("UserPromptSubmit", "x", done(0, "use tabs"))[1].context == ["use tabs"]
    assert interpret("SessionStart", "x", done(0, "branch main"))[1].context == ["branch main"]
    assert interpret("PreToolUse", "x", done(0, "chatter"))[1].context == []


def test_json_fields() -> None:
    out = {"continue": False, "stopReason": "enough", "systemMessage": "careful",
           "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                  "permissionDecisionReason": "check", "updatedInput": {"command": "ls"},
                                  "additionalContext": "ctx"}}
    label, got = interpret("PreToolUse", "x", done(0, json.dumps(out)))
    assert label == "success" and got.stop and got.stop_reason == "enough" and got.messages == ["careful"]
    assert got.permission == "ask" and got.reason == "check" and got.updated_input == {"command": "ls"}
    assert got.context == ["ctx"]


def test_unknown_decisions_ask_instead_of_allowing() -> None:
    label, got = interpret("PreToolUse", "x", done(0, json.dumps(
        {"hookSpecificOutput": {"permissionDecision": "sure"}})))
    assert label == "error" and got.permission == "ask"


def test_output_for_another_event_is_ignored() -> None:
    label, got = interpret("PreToolUse", "x", done(0, json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "allow"}})))
    assert label == "error" and got.permission is None


def test_permission_request_decision() -> None:
    _, got = interpret("PermissionRequest", "x", done(0, json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                "decision": {"behavior": "deny", "message": "not today"}}})))
    assert got.permission == "deny" and got.reason == "not today"


def test_deny_beats_ask_beats_allow_across_hooks() -> None:
    parts = [interpret("PreToolUse", "x", done(0, json.dumps(
        {"hookSpecificOutput": {"permissionDecision": d}})))[1] for d in ("allow", "deny", "ask")]
    assert combine(parts).permission == "deny"
    assert combine(parts[:1] + parts[2:]).permission == "ask"


def test_timeouts_are_reported() -> None:
    label, got = interpret("Stop", "Stop", done(None, timed_out=True))
    assert label == "timeout" and "timed out" in got.messages[0] and not got.block


def test_configuration() -> None:
    specs, warnings = parse_hooks({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "a", "timeout": 5}, {"type": "prompt", "prompt": "x"}]}],
        "FutureEvent": []}, "settings.toml")
    assert [(s.event, s.matcher, s.command, s.timeout_s) for s in specs] == [("PreToolUse", "Bash", "a", 5.0)]
    assert len(warnings) == 2
    for bad in ({"Stop": {"hooks": []}}, {"Stop": [{"hooks": [{"command": ""}]}]},
                {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}, ["Stop"]):
        with pytest.raises(ConfigError):
            parse_hooks(bad, "f")
