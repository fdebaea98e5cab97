"""Model listing and the first-use probe, against the fake Ollama / OpenAI-compatible server, and the
`agentcli models` command."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from agentcli.commands import models
from agentcli.errors import ConfigError
from agentcli.net.errors import ConnectError
from agentcli.providers import probe
from tests.fakes import Reply, ToolCall
from tests.fakes.ollama import FakeOllama


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_catalog_lists_hosted_models_with_prices() -> None:
    entries = probe.catalog_models("anthropic")
    assert entries and all(e.provider == "anthropic" and e.source == "catalog" for e in entries)
    assert all(e.context_window and e.input_price for e in entries)


def test_live_listing_ollama_and_openai_compatible() -> None:
    with FakeOllama(models={"qwen3:8b": 40960, "llama3.2": 131072}) as fake:
        native = asyncio.run(probe.list_live("ollama", fake.url))
        compat = asyncio.run(probe.list_live("llamacpp", fake.openai_url))
    assert [(e.name, e.context_window, e.input_price) for e in native] == [("qwen3:8b", 40960, 0.0),
                                                                          ("llama3.2", 131072, 0.0)]
    assert [e.name for e in compat] == ["qwen3:8b", "llama3.2"] and compat[0].provider == "llamacpp"


def test_unreachable_server_is_an_error_with_a_short_timeout() -> None:
    with pytest.raises(ConnectError):
        asyncio.run(probe.list_live("ollama", f"http://127.0.0.1:{closed_port()}", timeout_s=0.5))


def test_probe_openai_compatible_native_and_text_calls() -> None:
    call = Reply(tool_calls=[ToolCall("get_time", {"city": "Paris"})])
    text = Reply(text='<tool_call>{"name": "get_time", "arguments": {"city": "Paris"}}</tool_call>')
    with FakeOllama([call, text, Reply(text="It is noon.")], models={"m": 8192}) as fake:
        native = asyncio.run(probe.probe("openai", fake.openai_url, "m"))
        again = asyncio.run(probe.probe("openai", fake.openai_url, "m"))
        as_text = asyncio.run(probe.probe("openai", fake.openai_url, "m", use_cache=False))
        none = asyncio.run(probe.probe("openai", fake.openai_url, "m", use_cache=False))
        sent = fake.requests[0].body
    assert (native.tool_calling, again.tool_calling, as_text.tool_calling, none.tool_calling) == (
        "native", "native", "text", "none")
    assert sent["tools"][0]["function"]["name"] == "get_time" and sent["stream"] is False


def test_probe_ollama_uses_capabilities_and_real_context() -> None:
    with FakeOllama(models={"qwen3:8b": 40960}) as fake:
        result = asyncio.run(probe.probe("ollama", fake.url, "qwen3:8b"))
    assert (result.tool_calling, result.context_window) == ("native", 40960)


def test_models_command_hosted(capsys: pytest.CaptureFixture[str]) -> None:
    assert models.main(["--provider", "google"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PROVIDER") and "gemini" in out


def test_models_command_ollama_json_with_probe(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOllama(models={"qwen3:8b": 40960}) as fake:
        code = models.main(["--provider", "ollama", "--base-url", fake.url, "--json", "--probe", "qwen3:8b"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["models"] == [{"provider": "ollama", "name": "qwen3:8b", "context_window": 40960,
                               "input_price": 0.0, "output_price": 0.0, "source": "live"}]
    assert data["probe"]["tool_calling"] == "native"


def test_models_command_everything_notes_servers_that_are_down(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = closed_port()
    for var in ("OLLAMA_HOST", "LLAMACPP_BASE_URL", "LMSTUDIO_BASE_URL", "VLLM_BASE_URL"):
        monkeypatch.setenv(var, f"127.0.0.1:{port}")
    assert models.main(["--timeout", "0.5"]) == 0
    captured = capsys.readouterr()
    assert "anthropic" in captured.out and "ollama: not reachable" in captured.err


def test_models_command_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert models.main(["--provider", "groq"]) == 2
    assert "GROQ_API_KEY" in capsys.readouterr().err
    assert models.main(["--provider", "ollama", "--base-url", f"127.0.0.1:{closed_port()}", "--timeout", "0.5"]) == 75
    assert ConfigError.exit_status == 2


def test_first_use_probe_of_a_server_that_is_not_there_learns_and_caches_nothing() -> None:
    """Nothing listens: no "First use … context window unknown" note and no cache entry that would stop the
    probe once the server is up (the run itself says the server is down)."""
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(ConnectError):
        asyncio.run(probe.probe("openai", url, "default", timeout_s=0.5, chat=False))
    assert probe.cached(url, "default") is None
