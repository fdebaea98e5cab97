"""The native Ollama adapter against the fake Ollama server: events, num_ctx, faults, and the agent loop."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from agentcli.errors import (
    BadRequestError,
    ContextOverflowError,
    ProviderTimeoutError,
    RateLimitError,
    StreamError,
    UnavailableError,
)
from agentcli.llm.messages import Message
from agentcli.net.errors import ConnectError
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.providers.ollama import OllamaProvider, ollama_base_url
from agentcli.providers.retry import RetryingProvider
from tests.fakes import Fault, Reply, ToolCall, Usage
from tests.fakes.ollama import FakeOllama
from tests.providers.adapter_cases import (
    TOOL_SPECS,
    add,
    assert_paired,
    replay_requests,
    round_trip_replies,
    run_agent,
    stream_once,
    three_tool_replies,
)

MODEL = "llama-fake"


def make(fake: FakeOllama, **opts: object) -> OllamaProvider:
    return OllamaProvider(ProviderConfig("ollama", base_url=fake.url, max_retries=2, retry_base_delay_s=0,
                                         request_timeout_s=5, options=dict(opts)))


def request(text: str = "hi", max_tokens: int = 256) -> ModelRequest:
    return ModelRequest(MODEL, "be brief", (Message.user(text),), TOOL_SPECS, max_tokens=max_tokens)


def test_three_tool_task_through_the_agent_loop(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("hello\n")
    with FakeOllama(three_tool_replies(target)) as fake:
        norm, agent = run_agent(RetryingProvider(make(fake), make(fake).cfg), MODEL, tmp_path)
        assert fake.violations == []
        assert fake.show_calls == 1
    assert target.read_text() == "héllo 🌍\n"
    tools = [n for n in norm if n[0] == "tool"]
    assert [(t[1], t[3]) for t in tools] == [("Read", False), ("Edit", False), ("Bash", False)]
    assert norm[-1][:4] == ("result", "success", "Done: it says héllo 🌍.", 4)
    assert norm[0] == ("thinking", "I should look at the file first.")
    assert_paired(agent)
    sent = fake.requests[-1].body
    assert [m["role"] for m in sent["messages"]][-2:] == ["assistant", "tool"]
    assert sent["messages"][-1]["tool_name"] == "Bash"
    assert sent["options"]["num_ctx"] == 32768


def test_round_trips() -> None:
    with FakeOllama(round_trip_replies()) as fake:
        got = replay_requests(lambda: make(fake), MODEL, round_trip_replies())
        assert fake.violations == []
    assert got[0] == [("thinking", "Two files at once."), ("call", "Read", {"file_path": "/a/ü.txt"}),
                      ("call", "Read", {"file_path": "/b"}), ("usage", 10, 7, 0, 0), ("stop", "tool_use")]
    assert got[1] == [("usage", 12, 1, 0, 0), ("stop", "end_turn")]
    assert got[2][0] == ("text", "日本語 ✓ «quotes» \"esc\" \\ 🎉")


def test_num_ctx_from_modelfile_or_option_and_overflow() -> None:
    with FakeOllama([Reply(text="a"), Reply(text="b")], models={MODEL: 8192}, modelfile_ctx={MODEL: 4096}) as fake:
        assert stream_once(make(fake), request())[1] is None
        assert fake.requests[-1].body["options"]["num_ctx"] == 4096
        assert stream_once(make(fake, num_ctx=2048), request())[1] is None
        assert fake.requests[-1].body["options"]["num_ctx"] == 2048
        _, err = stream_once(make(fake), request("x" * 40_000))
        assert isinstance(err, ContextOverflowError)


def test_warns_once_in_the_stream_when_the_prompt_outgrows_num_ctx() -> None:
    from agentcli.llm.stream import Notice

    with FakeOllama([Reply(text="ok"), Reply(text="again")], models={MODEL: 100_000}) as fake:
        p = make(fake, max_num_ctx=1024)

        async def twice() -> list[list[object]]:
            try:
                return [[ev async for ev in p.stream(request("y" * 8000))] for _ in range(2)]
            finally:
                await p.aclose()

        first, second = asyncio.run(twice())
    notices = [e for e in first if isinstance(e, Notice)]
    assert len(notices) == 1 and notices[0].level == "warning" and first[0] == notices[0]
    assert "num_ctx=1024" in notices[0].text and "providers.ollama.num_ctx" in notices[0].text
    assert not any(isinstance(e, Notice) for e in second)  # once per session


def test_missing_model_and_server_down_name_the_fix() -> None:
    with FakeOllama([], models={}) as fake:
        _, err = stream_once(make(fake), request())
        assert isinstance(err, BadRequestError) and "ollama pull llama-fake" in err.one_line()
        port = fake.port
    _, err = stream_once(OllamaProvider(ProviderConfig("ollama", base_url=f"http://127.0.0.1:{port}")), request())
    assert isinstance(err, ConnectError) and "ollama serve" in err.one_line()


@pytest.mark.parametrize(
    ("fault", "retried"),
    [(Fault.rate_limit(retry_after=0), "rate_limit"), (Fault.server_error(), "unavailable"),
     (Fault.overloaded(), "overloaded")],
)
def test_retryable_faults_are_retried(fault: Fault, retried: str) -> None:
    with FakeOllama([Reply(fault=fault), Reply(text="fine")]) as fake:
        p = make(fake, num_ctx=4096)  # no /api/show first: the fault hits a fresh connection
        norm, err = stream_once(RetryingProvider(p, p.cfg), request())
    assert err is None
    assert norm[0][:3] == ("retry", 1, retried)
    assert ("text", "fine") in norm


def test_exhausted_retries_exit_75() -> None:
    with FakeOllama([Reply(fault=Fault.rate_limit(0))] * 3) as fake:
        p = make(fake)
        norm, err = stream_once(RetryingProvider(p, p.cfg), request())
    assert isinstance(err, RateLimitError) and err.exit_status == 75
    assert [n[1] for n in norm if n[0] == "retry"] == [1, 2]


@pytest.mark.parametrize(
    ("fault", "error"),
    [(Fault("drop_mid", after_events=2), UnavailableError), (Fault("malformed", after_events=2), StreamError),
     (Fault("stream_error", after_events=2, message="model runner stopped"), UnavailableError)],
)
def test_mid_stream_failures_keep_the_output(fault: Fault, error: type[UnavailableError | StreamError]) -> None:
    """A retryable break mid-reply is retried (the partial output declared void); the others end the stream."""
    with FakeOllama([Reply(text="abcdefghijklmnopqrstuvwxyz", chunk_size=4, fault=fault), Reply(text="again")]) as fake:
        p = make(fake)
        norm, err = stream_once(RetryingProvider(p, p.cfg), request())
    if err is None:  # retryable (the error class decides): retried, the partial output declared void
        assert norm[0] == ("text", "abcdefgh") and norm[1][0] == "retry" and ("text", "again") in norm
        return
    assert isinstance(err, error) and not err.retryable
    assert norm == [("text", "abcdefgh")]


def test_slow_headers_time_out() -> None:
    with FakeOllama([Reply(text="late", fault=Fault("slow_first_byte", delay_s=2))]) as fake:
        p = OllamaProvider(ProviderConfig("ollama", base_url=fake.url, request_timeout_s=0.3, max_retries=0,
                                          options={"num_ctx": 4096}))
        _, err = stream_once(RetryingProvider(p, p.cfg), request())
    assert isinstance(err, ProviderTimeoutError) and err.exit_status == 75


def test_fake_speaks_what_plain_httpx_expects() -> None:
    with FakeOllama([Reply(thinking="hm", text="hi", tool_calls=[ToolCall("Read", {"file_path": "x"})],
                           usage=Usage(3, 4))]) as fake:
        lines = []
        with httpx.stream("POST", f"{fake.url}/api/chat", json={"model": MODEL, "messages": [
                {"role": "user", "content": "hi"}]}) as r:
            assert r.headers["content-type"] == "application/x-ndjson"
            lines = [json.loads(x) for x in r.iter_lines() if x]
        tags = httpx.get(f"{fake.url}/api/tags").json()
    assert lines[-1]["done"] is True and lines[-1]["eval_count"] == 4
    assert lines[2]["message"]["tool_calls"][0]["function"]["arguments"] == {"file_path": "x"}
    assert tags["models"][0]["name"] == MODEL


def test_host_resolution() -> None:
    assert ollama_base_url(None, {"OLLAMA_HOST": "0.0.0.0:1234"}) == "http://127.0.0.1:1234"
    assert ollama_base_url("http://box:11434/v1", {}) == "http://box:11434"
    assert ollama_base_url(None, {}) == "http://127.0.0.1:11434"


def test_text_tool_calls_in_content_are_extracted() -> None:
    body = '<think>plan</think><tool_call>{"name": "Read", "arguments": {"file_path": "q"}}</tool_call>'
    with FakeOllama([Reply(text=body, chunk_size=3)]) as fake:
        norm, err = stream_once(make(fake), request())
    assert err is None
    assert norm[:2] == [("thinking", "plan"), ("call", "Read", {"file_path": "q"})]
    assert norm[-1] == ("stop", "tool_use")
    with FakeOllama([Reply(text=body)]) as fake:
        norm, err = stream_once(make(fake, text_tool_calls=False), request())
    assert norm[0] == ("text", body)


def test_effort_turns_on_think_only_for_models_that_can() -> None:
    with FakeOllama([Reply(text="a"), Reply(text="b")], models={MODEL: 8192, "qwen3": 40960},
                    capabilities={"qwen3": ["completion", "tools", "thinking"]}) as fake:
        for model in (MODEL, "qwen3"):
            req = ModelRequest(model, "", (Message.user("x"),), effort="high")
            assert stream_once(make(fake), req)[1] is None
        sent = [r.body for r in fake.requests if r.path == "/api/chat"]
    assert "think" not in sent[0] and sent[1]["think"] is True


def httpx_normalized(fake: FakeOllama, n: int) -> list[list[tuple[object, ...]]]:
    """What plain httpx (Ollama has no official SDK we ship) reads from the next `n` replies, normalized."""
    out = []
    with httpx.Client() as client:
        for _ in range(n):
            norm: list[tuple[object, ...]] = []
            calls = 0
            body = {"model": MODEL, "messages": [{"role": "user", "content": "go"}]}
            with client.stream("POST", f"{fake.url}/api/chat", json=body) as r:
                for line in r.iter_lines():
                    obj = json.loads(line)
                    msg = obj["message"]
                    if msg.get("thinking"):
                        add(norm, "thinking", msg["thinking"])
                    if msg.get("content"):
                        add(norm, "text", msg["content"])
                    for c in msg.get("tool_calls") or ():
                        calls += 1
                        norm.append(("call", c["function"]["name"], c["function"]["arguments"]))
                    if obj["done"]:
                        norm.append(("usage", obj["prompt_eval_count"], obj["eval_count"], 0, 0))
                        norm.append(("stop", "tool_use" if calls else "end_turn"))
            out.append(norm)
    return out


def test_httpx_and_the_adapter_see_the_same_three_tool_task(tmp_path: Path) -> None:
    replies = three_tool_replies(tmp_path / "f.txt")
    with FakeOllama(replies) as fake:
        ours = replay_requests(lambda: make(fake), MODEL, replies)
        fake.push(*replies)
        theirs = httpx_normalized(fake, len(replies))
        assert fake.violations == []
    assert ours == theirs
