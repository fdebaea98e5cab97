"""Issue 28 (the first hour, second pass): URLs checked up front, the kind of server found by what it answers,
hosted providers with no key refused at once and all alike, `models --probe` asking the server. Each case in
one attempt, against the fake LLM server over loopback (no DNS: a name that does not resolve is checked at the
error mapping, with the resolver's own error)."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from agentcli.net.errors import HostNotFound
from agentcli.net.mapping import map_httpx_error
from tests.cli.helpers import agentcli
from tests.cli.test_firsthour import llama_routes, local_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.mark.parametrize(("model", "var"), [
    ("openai/gpt-5", "OPENAI_API_KEY"),  # the Responses API: it went to the network and retried four times
    ("openai/gpt-4.1", "OPENAI_API_KEY"),
    ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    ("google/gemini-2.5-pro", "GEMINI_API_KEY"),
])
def test_a_hosted_provider_without_its_key_fails_at_once_the_same_way(tmp_path: object, model: str,
                                                                     var: str) -> None:
    run = agentcli(["-p", "hi", "--model", model], tmp_path)  # type: ignore[arg-type]
    assert run.status == 2, run.stderr
    assert f"agentcli: {var}" in run.stderr and "is not set — export it or put it in" in run.stderr, run.stderr
    assert "[auth]" in run.stderr and "retry" not in run.stderr and "connect" not in run.stderr


@pytest.mark.parametrize(("url", "said"), [
    ("127.0.0.1:8080/v1", "did you mean http://127.0.0.1:8080/v1?"),
    ("localhost:8080/v1", "did you mean http://localhost:8080/v1?"),
    ("notaurl", "is not a URL"),
    ("ftp://127.0.0.1:8080/v1", "only http and https"),
    ("http://127.0.0.1:99999/v1", "no usable host and port"),
])
def test_a_base_url_is_checked_before_anything_runs(tmp_path: object, fake_llm: FakeLLM, url: str,
                                                    said: str) -> None:
    run = agentcli(["-p", "hi", "--base-url", url], tmp_path, local_env(fake_llm))  # type: ignore[arg-type]
    assert run.status == 2, run.stderr
    assert said in run.stderr and "[bad_base_url]" in run.stderr, run.stderr
    assert "OPENAI_API_KEY" not in run.stderr and "is Ollama running" not in run.stderr
    assert fake_llm.requests == []


def test_llamacpps_url_without_v1_works(tmp_path: object, fake_llm: FakeLLM) -> None:
    """llama-server prints `http://127.0.0.1:8080`; taken for Ollama it gave "HTTP 404 … ollama pull qwen3"."""
    llama_routes(fake_llm)
    fake_llm.push(Reply(text="hello from llama.cpp"))
    run = agentcli(["-p", "hi", "--base-url", fake_llm.url, "--output-format", "stream-json", "--verbose"],
                   tmp_path, local_env(fake_llm))  # type: ignore[arg-type]
    assert run.status == 0, run.stderr
    lines = run.lines()
    assert (lines[0]["provider"], lines[0]["model"]) == ("llamacpp", GGUF)
    assert lines[-1]["result"] == "hello from llama.cpp"
    assert fake_llm.requests[-1].path == "/v1/chat/completions"


def test_models_with_llamacpps_url_without_v1_lists_its_model(tmp_path: object, fake_llm: FakeLLM) -> None:
    llama_routes(fake_llm)
    run = agentcli(["models", "--base-url", fake_llm.url, "--json"], tmp_path,  # type: ignore[arg-type]
                   local_env(fake_llm))
    assert run.status == 0, run.stderr
    assert [(m["provider"], m["name"]) for m in json.loads(run.stdout)["models"]] == [("llamacpp", GGUF)]


def _resolver_failure(errno: int, text: str, url: str) -> BaseException:
    """What agentcli makes of httpx's ConnectError caused by the resolver's `errno` (as getaddrinfo raises it)."""
    try:
        try:
            raise socket.gaierror(errno, text)
        except socket.gaierror as cause:
            raise httpx.ConnectError(str(cause)) from cause
    except httpx.ConnectError as e:
        return map_httpx_error(e, url, phase="connect")


def test_a_host_that_does_not_resolve_fails_once_and_says_so() -> None:
    """`--base-url http://notaurl:8080/v1` retried the lookup four times and printed "unknown error -2 — is
    Ollama running?". The resolver's "no such name" is final: no retry, and the message names the host."""
    err = _resolver_failure(socket.EAI_NONAME, "Name or service not known", "http://notaurl:8080/v1/chat/completions")
    assert isinstance(err, HostNotFound) and not err.retryable
    assert "'notaurl' does not resolve" in err.one_line() and "-2" not in err.one_line()
    passing = _resolver_failure(socket.EAI_AGAIN, "Temporary failure in name resolution", "http://example.test/v1")
    assert not isinstance(passing, HostNotFound) and getattr(passing, "retryable", False)


def test_models_probe_asks_the_server_not_the_cache(tmp_path: object, fake_llm: FakeLLM) -> None:
    """An ordinary run leaves a first-use probe result (metadata only) in the cache; `models --probe` must still
    ask the model whether it calls tools, as the README says."""
    llama_routes(fake_llm)
    fake_llm.push(Reply(text="hello"))
    env = local_env(fake_llm)
    assert agentcli(["-p", "hi", "--base-url", fake_llm.openai_url], tmp_path, env).status == 0  # type: ignore[arg-type]
    fake_llm.push(Reply(tool_calls=[ToolCall("get_time", {"city": "Paris"})]))
    asked = len(fake_llm.requests)
    run = agentcli(["models", "--base-url", fake_llm.openai_url, "--probe", GGUF, "--json"],
                   tmp_path, env)  # type: ignore[arg-type]
    assert run.status == 0, run.stderr
    assert json.loads(run.stdout)["probe"]["tool_calling"] == "native"
    probes = [r for r in fake_llm.requests[asked:] if r.body.get("tools")]
    assert probes and probes[0].body["tools"][0]["function"]["name"] == "get_time"
