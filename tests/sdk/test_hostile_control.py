"""The control protocol against a hostile or broken SDK side: every malformed request gets a clear error answer
(never an internal error, never a crash), a session started without bypassPermissions cannot be switched into it,
and a `can_use_tool` answer is believed only in the shape the protocol gives it. The real agentcli in stream-json
mode, driven by hand, against the fake model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import agentcli
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import Raw, make_sdk, raw, user

# An answer that names a Python exception class is an internal error leaking out, not a clear one.
INTERNAL = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b:|Traceback|object has no attribute|not subscriptable")

HOSTILE: list[dict[str, Any]] = [
    {"subtype": None},
    {"subtype": 42},
    {"subtype": ["interrupt"]},
    {"subtype": "set_permission_mode"},
    {"subtype": "set_permission_mode", "mode": 7},
    {"subtype": "set_permission_mode", "mode": {"x": 1}},
    {"subtype": "set_model", "model": 5},
    {"subtype": "set_model", "model": ""},
    {"subtype": "set_model", "model": "no-such-provider/x" + "y" * 5000},
    {"subtype": "set_model", "model": "../../etc/passwd"},
    {"subtype": "rewind_files"},
    {"subtype": "rewind_files", "user_message_id": ["x"]},
    {"subtype": "rewind_files", "user_message_id": "not-a-message"},
    {"subtype": "mcp_reconnect"},
    {"subtype": "mcp_reconnect", "serverName": {"a": 1}},
    {"subtype": "mcp_reconnect", "serverName": "no\nsuch\x00server"},
    {"subtype": "mcp_toggle", "serverName": "ghost", "enabled": "yes"},
    {"subtype": "mcp_message", "server_name": "ghost", "message": {"jsonrpc": "2.0", "id": 1, "method": "ping"}},
    {"subtype": "hook_callback", "callback_id": "hook_0", "input": {}},
    {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "id"}},
    {"subtype": "initialize"},  # a second one
]
HOSTILE_INIT: list[dict[str, Any]] = [
    {"subtype": "initialize", "hooks": "not a table", "agents": 3, "sdkMcpServers": "x"},
    {"subtype": "initialize", "hooks": {"PreToolUse": [{"matcher": 5, "hookCallbackIds": "x"}, 7],
                                        "NoSuchEvent": [{"hookCallbackIds": ["a"]}]}},
    {"subtype": "initialize", "agents": {"a": "not an agent", "b": {"prompt": 3, "tools": "Read"}},
     "sdkMcpServers": [{"name": 1}, "__x__", "a" * 300, None]},
]


def answer_to(p: Raw, request_id: str) -> dict[str, Any]:
    seen = p.read_until(lambda o: o["type"] == "control_response" and o["response"]["request_id"] == request_id)
    response: dict[str, Any] = seen[-1]["response"]
    return response


def test_malformed_control_requests_get_clear_error_answers_and_the_session_goes_on(
        tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="still here"))
    p = raw(sdk)
    p.send({"type": "control_request", "request_id": "warm", "request": {"subtype": "mcp_status"}})
    assert answer_to(p, "warm")["subtype"] == "success"
    internal: list[tuple[dict[str, Any], str]] = []
    for n, request in enumerate(HOSTILE):
        p.send({"type": "control_request", "request_id": f"h{n}", "request": request})
        got = answer_to(p, f"h{n}")
        text = str(got.get("error", ""))
        if got["subtype"] == "error" and (INTERNAL.search(text) or not text):
            internal.append((request, text))
        assert got["subtype"] in ("error", "success"), got
    assert internal == []
    p.send({"type": "control_response", "response": {"subtype": "success", "request_id": "never-asked",
                                                      "response": {"behavior": "allow"}}})
    p.send(user("hello"))
    status, lines, err = p.finish()
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "still here"
    assert "a control_response for no pending request ('never-asked')" in err
    assert status == 0 and "Traceback" not in err


@pytest.mark.parametrize("n", range(len(HOSTILE_INIT)))
def test_a_malformed_initialize_is_answered_clearly_and_the_session_still_runs(
        tmp_path: Path, fake_llm: FakeLLM, n: int) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="still here"))
    p = raw(sdk)
    p.send({"type": "control_request", "request_id": "init", "request": HOSTILE_INIT[n]})
    got = answer_to(p, "init")
    assert got["subtype"] in ("error", "success") and not INTERNAL.search(str(got)), got
    p.send(user("hello"))
    _, lines, err = p.finish()
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "still here", err
    assert "Traceback" not in err


def test_bypass_permissions_cannot_be_entered_by_a_session_started_without_it(
        tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="asked first"))
    p = raw(sdk, "--permission-prompt-tool", "stdio")
    p.send({"type": "control_request", "request_id": "up", "request": {"subtype": "set_permission_mode",
                                                                        "mode": "bypassPermissions"}})
    refused = answer_to(p, "up")
    assert refused["subtype"] == "error"
    assert "bypassPermissions cannot be entered in this session" in refused["error"]
    assert "--allow-dangerously-skip-permissions" in refused["error"]
    p.send(user("make a file"))
    asked = p.read_until(lambda o: o["type"] == "control_request")[-1]
    assert asked["request"]["subtype"] == "can_use_tool" and asked["request"]["tool_name"] == "Bash"
    p.send({"type": "control_response", "response": {"subtype": "success", "request_id": asked["request_id"],
                                                      "response": {"behavior": "deny", "message": "no"}}})
    status, lines, _ = p.finish()
    assert status == 0 and lines[-1]["result"] == "asked first"
    assert not (sdk.proj / "made.txt").exists()


def test_bypass_permissions_may_be_entered_when_the_session_allows_it(tmp_path: Path, fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="made it"))
    for extra in (("--allow-dangerously-skip-permissions",), ("--permission-mode", "bypassPermissions")):
        p = raw(sdk, "--permission-prompt-tool", "stdio", *extra)
        p.send({"type": "control_request", "request_id": "down", "request": {"subtype": "set_permission_mode",
                                                                              "mode": "default"}})
        assert answer_to(p, "down")["subtype"] == "success"
        p.send({"type": "control_request", "request_id": "up", "request": {"subtype": "set_permission_mode",
                                                                            "mode": "bypassPermissions"}})
        assert answer_to(p, "up") == {"subtype": "success", "request_id": "up",
                                      "response": {"mode": "bypassPermissions"}}
        if extra[0] == "--allow-dangerously-skip-permissions":
            p.send(user("make a file"))
        status, lines, _ = p.finish()
        assert status == 0 and not [x for x in lines if x["type"] == "control_request"]
    assert (sdk.proj / "made.txt").exists()


def test_a_session_a_trusted_settings_file_started_in_bypass_may_return_to_it(tmp_path: Path,
                                                                             fake_llm: FakeLLM) -> None:
    settings = '[permissions]\ndefault_mode = "bypassPermissions"\n'
    sdk = make_sdk(tmp_path, fake_llm, {".agentcli/settings.toml": settings})
    assert agentcli(["permissions", "trust"], sdk.proj, {}).status == 0
    p = raw(sdk, "--permission-prompt-tool", "stdio")
    for n, mode in enumerate(("default", "bypassPermissions")):
        p.send({"type": "control_request", "request_id": f"m{n}", "request": {"subtype": "set_permission_mode",
                                                                               "mode": mode}})
        assert answer_to(p, f"m{n}")["subtype"] == "success", mode
    status, _, _ = p.finish()
    assert status == 0


def test_an_allow_whose_updated_input_is_not_an_object_is_a_denial(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """`updatedInput` must be the tool's input object: anything else is a malformed answer, so the call does not
    run (neither as asked nor as some guess at what the SDK meant)."""
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "touch made.txt"})]), Reply(text="not run"))
    p = raw(sdk, "--permission-prompt-tool", "stdio")
    p.send(user("make a file"))
    asked = p.read_until(lambda o: o["type"] == "control_request")[-1]
    p.send({"type": "control_response", "response": {
        "subtype": "success", "request_id": asked["request_id"],
        "response": {"behavior": "allow", "updatedInput": "touch other.txt"}}})
    status, lines, _ = p.finish()
    assert status == 0 and lines[-1]["result"] == "not run"
    assert [d["tool_name"] for d in lines[-1]["permission_denials"]] == ["Bash"]
    assert "updatedInput" in str(fake_llm.requests[1].body["messages"][-1])
    assert not (sdk.proj / "made.txt").exists() and not (sdk.proj / "other.txt").exists()


def test_an_updated_input_cannot_reach_a_protected_file(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The SDK's rewrite is a new call: the built-in protection of secrets (`.env`) still denies it."""
    sdk = make_sdk(tmp_path, fake_llm, {"notes.txt": "alpha\n", ".env": "TOKEN=hunter2-secret-99\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Write", {"file_path": "out.txt", "content": "x"})]),
                  Reply(text="done"))
    p = raw(sdk, "--permission-prompt-tool", "stdio")
    p.send(user("write"))
    asked = p.read_until(lambda o: o["type"] == "control_request")[-1]
    p.send({"type": "control_response", "response": {
        "subtype": "success", "request_id": asked["request_id"],
        "response": {"behavior": "allow", "updatedInput": {"file_path": ".env", "content": "TOKEN=mine\n"}}}})
    status, lines, _ = p.finish()
    assert status == 0 and lines[-1]["result"] == "done"
    assert (sdk.proj / ".env").read_text() == "TOKEN=hunter2-secret-99\n"
    assert not (sdk.proj / "out.txt").exists()
