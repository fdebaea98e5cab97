"""Issue 2 acceptance: `agentcli -p` end to end, as a subprocess, against the fake LLM server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ANTHROPIC, OPENAI, agentcli, git_repo, provider_env
from tests.fakes.script import Fault, Reply, ToolCall, Usage
from tests.fakes.server import FakeLLM

BUGGY = "def parse(text):\n    return int(text) + 1\n"
FIXED = "def parse(text):\n    return int(text)\n"
TEST = "from parse import parse\n\n\ndef test_parse():\n    assert parse('42') == 42\n"
# The inner pytest loads no plugins from entry points (xdist, hypothesis, anyio…: ~0.5 s CPU per start); what the
# test checks is the same: the fixed test passes, the buggy one fails
QUIET_PYTEST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider test_parse.py"
PYTEST_CMD = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {PYTEST}"


def fix_script() -> list[Reply]:
    return [
        Reply(text="Let me look.", tool_calls=[ToolCall("Read", {"file_path": "parse.py"})]),
        Reply(tool_calls=[ToolCall("Edit", {"file_path": "parse.py", "old_string": "int(text) + 1",
                                            "new_string": "int(text)"})]),
        Reply(tool_calls=[ToolCall("Bash", {"command": PYTEST_CMD, "description": "run the tests"})]),
        Reply(text="Fixed parse.py: it no longer adds 1. The test passes."),
    ]


def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "proj", {"parse.py": BUGGY, "test_parse.py": TEST})


def tool_results(requests: list[Any]) -> list[dict[str, Any]]:
    """Every tool result the model was sent, in Anthropic or OpenAI shape, as {content, is_error?}."""
    out: list[dict[str, Any]] = []
    last = requests[-1].body["messages"]
    for m in last:
        if m["role"] == "tool":
            out.append({"content": m["content"]})
        elif m["role"] == "user" and isinstance(m["content"], list):
            out.extend(b for b in m["content"] if b.get("type") == "tool_result")
    return out


def _text(block: dict[str, Any]) -> str:
    c = block["content"]
    return c if isinstance(c, str) else "".join(p.get("text", "") for p in c)


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_fixes_failing_test_json(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    proj = repo(tmp_path)
    fake_llm.push(*fix_script())
    run = agentcli(["-p", "the test in test_parse.py fails; fix parse.py", "--model", model,
                    "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--output-format", "json"],
                   proj, provider_env(fake_llm, model))
    assert run.status == 0, run.stderr
    result = run.json()
    assert result["type"] == "result" and result["subtype"] == "success" and result["is_error"] is False
    assert result["num_turns"] == 4 and result["permission_denials"] == []
    assert result["result"].startswith("Fixed parse.py")
    for key in ("session_id", "duration_ms", "duration_api_ms", "total_cost_usd", "usage", "modelUsage"):
        assert key in result
    assert (proj / "parse.py").read_text() == FIXED
    assert subprocess.run(PYTEST.split(), cwd=proj, capture_output=True,
                          env={**os.environ, **QUIET_PYTEST}).returncode == 0
    assert "1 passed" in _text(tool_results(fake_llm.requests)[-1])
    assert fake_llm.violations == []


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_stream_json_lines(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    proj = repo(tmp_path)
    fake_llm.push(*fix_script())
    run = agentcli(["-p", "fix it", "--model", model, "--permission-mode", "acceptEdits", "--allowedTools", "Bash",
                    "--output-format", "stream-json"], proj, provider_env(fake_llm, model))
    assert run.status == 0, run.stderr
    lines = run.lines()
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init"
    assert {"Read", "Edit", "Bash"} <= set(lines[0]["tools"]) and lines[0]["permissionMode"] == "acceptEdits"
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    uses = [b["id"] for ln in lines if ln["type"] == "assistant" for b in ln["message"]["content"]
            if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for ln in lines if ln["type"] == "user" for b in ln["message"]["content"]
               if b["type"] == "tool_result"]
    assert len(uses) == 3 and sorted(uses) == sorted(results) and len(set(results)) == 3


def test_partial_messages_stream_deltas(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="hello streaming world", chunk_size=4))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json",
                    "--include-partial-messages"], tmp_path, provider_env(fake_llm, ANTHROPIC))
    deltas = [ln["event"]["delta"]["text"] for ln in run.lines() if ln["type"] == "stream_event"
              and ln["event"]["type"] == "content_block_delta"]
    assert "".join(deltas) == "hello streaming world" and len(deltas) > 1


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_edit_denied_without_permission_flags(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    proj = repo(tmp_path)
    fake_llm.push(*fix_script()[:2], Reply(text="I was not allowed to edit parse.py."))
    run = agentcli(["-p", "fix it", "--model", model, "--output-format", "json"], proj, provider_env(fake_llm, model))
    result = run.json()
    assert run.status == 3, run.stderr
    assert result["permission_denials"][0]["tool_name"] == "Edit"
    assert result["permission_denials"][0]["tool_input"]["file_path"] == "parse.py"
    assert (proj / "parse.py").read_text() == BUGGY
    denial = _text(tool_results(fake_llm.requests)[-1])
    assert "not granted" in denial and "Edit" in denial


def test_rate_limit_is_retried(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(fault=Fault.rate_limit(retry_after=0)), Reply(text="ok after retry"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json"], tmp_path,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    lines = run.lines()
    assert any(ln["type"] == "system" and ln["subtype"] == "api_retry" for ln in lines)
    assert lines[-1]["result"] == "ok after retry" and len(fake_llm.requests) == 2


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_provider_that_keeps_failing_exits_75(tmp_path: Path, model: str) -> None:
    with FakeLLM([Reply(fault=Fault.rate_limit(retry_after=0))], loop=True) as fake:
        run = agentcli(["-p", "hi", "--model", model, "--output-format", "stream-json"], tmp_path,
                       provider_env(fake, model))
    assert run.status == 75, run.stderr
    last = run.lines()[-1]
    assert last["type"] == "result" and last["is_error"] is True and last["error"]["code"] == "rate_limit"
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(("model", "var"), [(ANTHROPIC, "ANTHROPIC_API_KEY"), (OPENAI, "OPENAI_API_KEY")])
def test_missing_api_key_names_the_variable(tmp_path: Path, model: str, var: str) -> None:
    run = agentcli(["-p", "hi", "--model", model], tmp_path, {})
    assert run.status in (1, 2)
    assert var in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI])
def test_bad_tool_input_is_an_error_result_and_the_run_goes_on(
    tmp_path: Path, fake_llm: FakeLLM, model: str
) -> None:
    proj = repo(tmp_path)
    (proj / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (proj / "dup.txt").write_text("x = 1\nx = 1\n")
    fake_llm.push(
        Reply(tool_calls=[
            ToolCall("Read", raw_args='{"file_path": "parse.py"'),
            ToolCall("Teleport", {"to": "mars"}),
            ToolCall("Read", {"file_path": 42}),
        ]),
        Reply(tool_calls=[
            ToolCall("Read", {"file_path": "dup.txt"}),
            ToolCall("Read", {"file_path": "blob.bin"}),
            ToolCall("Read", {"file_path": "missing.py"}),
        ]),
        Reply(tool_calls=[
            ToolCall("Edit", {"file_path": "dup.txt", "old_string": "x = 1", "new_string": "x = 2"}),
            ToolCall("Edit", {"file_path": "dup.txt", "old_string": "nowhere", "new_string": "y"}),
        ]),
        Reply(text="done despite errors"),
    )
    run = agentcli(["-p", "go", "--model", model, "--permission-mode", "acceptEdits", "--output-format",
                    "stream-json"], proj, provider_env(fake_llm, model))
    assert run.status == 0, run.stderr
    lines = run.lines()
    results = [b for ln in lines if ln["type"] == "user" for b in ln["message"]["content"]]
    flags = [b["is_error"] for b in results]
    assert flags == [True, True, True, False, True, True, True, True]
    texts = [_text(b) for b in results]
    assert "Unknown tool 'Teleport'" in texts[1]
    assert "occurs 2 times" in texts[6] or "2 times" in texts[6] or "unique" in texts[6]
    assert lines[-1]["result"] == "done despite errors"
    assert (proj / "dup.txt").read_text() == "x = 1\nx = 1\n"


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_do_not_import_sdks(tmp_path: Path, flag: str) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentcli", flag], cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert not {"anthropic", "openai", "google.genai", "httpx"} & imported
    assert proc.stdout.strip()


def test_one_reply_run_uses_no_sdk(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="fast"))
    env = provider_env(fake_llm, ANTHROPIC)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentcli", "-p", "hi", "--model", ANTHROPIC],
                          cwd=tmp_path, capture_output=True, text=True, env={**_base_env(), **env})
    assert proc.returncode == 0 and proc.stdout.strip() == "fast"
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert not {"anthropic", "openai", "google.genai"} & imported


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}


def test_prompt_from_stdin(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="got it"))
    run = agentcli(["-p", "--model", ANTHROPIC], tmp_path, provider_env(fake_llm, ANTHROPIC), stdin="a task\n")
    assert run.status == 0 and run.stdout.strip() == "got it"
    assert fake_llm.requests[0].body["messages"][0]["content"][0]["text"].startswith("a task")


def test_first_run_without_provider_explains_and_exits_2(tmp_path: Path) -> None:
    run = agentcli(["-p", "hi"], tmp_path, {})
    assert run.status == 2
    assert "ANTHROPIC_API_KEY" in run.stderr and "config.toml" in run.stderr and "11434" in run.stderr


def test_max_turns_exit_4(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = repo(tmp_path)
    fake_llm.push(*[Reply(tool_calls=[ToolCall("Read", {"file_path": "parse.py"})]) for _ in range(3)])
    run = agentcli(["-p", "loop", "--model", ANTHROPIC, "--max-turns", "2", "--output-format", "json"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 4
    assert run.json()["subtype"] == "error_max_turns" and run.json()["num_turns"] == 2


def test_bad_flag_is_usage_error(tmp_path: Path) -> None:
    run = agentcli(["-p", "hi", "--output-format", "yaml"], tmp_path, {})
    assert run.status == 2 and "invalid choice" in run.stderr


def test_paths_outside_the_project_are_denied_headless(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = repo(tmp_path)
    (tmp_path / "secret.txt").write_text("top secret\n")
    (proj / "link.txt").symlink_to(tmp_path / "secret.txt")
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Read", {"file_path": "../secret.txt"}), ToolCall("Read", {"file_path": "link.txt"}),
                          ToolCall("Edit", {"file_path": "../secret.txt", "old_string": "top", "new_string": "no"})]),
        Reply(text="could not"),
    )
    run = agentcli(["-p", "x", "--model", ANTHROPIC, "--permission-mode", "acceptEdits", "--output-format", "json"],
                   proj, provider_env(fake_llm, ANTHROPIC))
    denied = [d["tool_input"]["file_path"] for d in run.json()["permission_denials"]]
    assert denied == ["../secret.txt", "link.txt", "../secret.txt"]
    assert "top secret" not in str(fake_llm.requests[-1].body)
    assert (tmp_path / "secret.txt").read_text() == "top secret\n"


def test_first_use_of_a_local_endpoint_is_probed_once(tmp_path: Path, fake_llm: FakeLLM) -> None:
    with_tools = Usage(input_tokens=4000)  # a prompt count that shows the tools arrived (see test_tools_seen)
    fake_llm.push(Reply(text="one", usage=with_tools), Reply(text="two", usage=with_tools))
    env = {**provider_env(fake_llm, OPENAI), "AGENTCLI_HOME": str(tmp_path / "home")}
    args = ["-p", "hi", "--model", OPENAI, "--output-format", "stream-json"]
    notes = [[ln["text"] for ln in agentcli(args, tmp_path, env).lines() if ln.get("subtype") == "notice"]
             for _ in range(2)]
    assert len(notes[0]) == 1 and notes[0][0].startswith(f"First use of {fake_llm.openai_url} (gpt-4.1)")
    assert notes[1] == []
    assert len(fake_llm.requests) == 2  # the probe reads metadata only; it never spends a model call


def test_interactive_first_run_without_provider_explains_and_exits_2(tmp_path: Path) -> None:
    run = agentcli([], tmp_path, {})
    assert run.status == 2
    assert "No model provider is configured" in run.stderr and "OPENAI_BASE_URL" in run.stderr
