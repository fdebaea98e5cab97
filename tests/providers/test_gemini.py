"""The Gemini adapter against the fake: the google-genai SDK agrees with the fake, the three-tool task through
the agent loop matches the Anthropic adapter, round trips, schema cleaning, faults."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.errors import AuthError
from agentcli.llm.messages import Message, ToolResultBlock, ToolUseBlock
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.providers.gemini import SKIP_SIGNATURE, GeminiProvider, build_body
from tests.fakes import FakeLLM, Fault, Reply, ToolCall, Usage
from tests.providers.adapter_cases import (
    MID_STREAM_FAULTS,
    RETRYABLE_FAULTS,
    TOOL_SPECS,
    add,
    anthropic_reference,
    check_exhausted,
    check_mid_stream,
    check_retried,
    check_slow_headers,
    replay_requests,
    round_trip_replies,
    stream_once,
    three_tool_replies,
    three_tool_run,
)

MODEL = "gemini-2.5-flash"


def make(fake: FakeLLM) -> GeminiProvider:
    return GeminiProvider(ProviderConfig("google", base_url=fake.url, api_key="gem-test-key", max_retries=2,
                                         retry_base_delay_s=0, request_timeout_s=5))


def request(effort: str | None = "low") -> ModelRequest:
    return ModelRequest(MODEL, "be brief", (Message.user("hi"),), TOOL_SPECS, max_tokens=256,
                        effort=effort)  # type: ignore[arg-type]


def test_google_genai_sdk_reads_the_fake() -> None:
    from google import genai
    from google.genai import types

    reply = Reply(thinking="ponder", text="héllo", usage=Usage(20, 9, reasoning_tokens=4),
                  tool_calls=[ToolCall("Read", {"file_path": "a"}), ToolCall("Bash", {"command": "ls"})])
    with FakeLLM([reply]) as fake:
        client = genai.Client(api_key="gem-test", http_options=types.HttpOptions(base_url=fake.url))
        chunks = list(client.models.generate_content_stream(
            model=MODEL, contents="hi",
            config=types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True)),
        ))
        assert fake.violations == []
        assert f"/models/{MODEL}:streamGenerateContent" in fake.requests[0].path
    parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]  # type: ignore[index, union-attr]
    assert "".join(p.text or "" for p in parts if p.thought) == "ponder"
    assert "".join(p.text or "" for p in parts if not p.thought) == "héllo"
    calls = [p.function_call for p in parts if p.function_call]
    assert [(c.name, c.args) for c in calls] == [("Read", {"file_path": "a"}), ("Bash", {"command": "ls"})]
    meta = chunks[-1].usage_metadata
    assert meta is not None and meta.thoughts_token_count == 4 and meta.prompt_token_count == 20


def test_three_tool_task_matches_the_anthropic_adapter(tmp_path: Path) -> None:
    with FakeLLM() as fake:
        got = three_tool_run(tmp_path, fake, make, MODEL)
        sent = fake.requests[-1].body
    assert got == anthropic_reference(tmp_path)
    assert [c["role"] for c in sent["contents"]] == ["user", "model", "user", "model", "user", "model", "user"]
    assert "functionResponse" in sent["contents"][-1]["parts"][0]


def test_round_trips() -> None:
    with FakeLLM(round_trip_replies()) as fake:
        got = replay_requests(lambda: make(fake), MODEL, round_trip_replies())
        assert fake.violations == []
        tools = fake.requests[0].body["tools"][0]["functionDeclarations"]
    assert got[0] == [("thinking", "Two files at once."), ("call", "Read", {"file_path": "/a/ü.txt"}),
                      ("call", "Read", {"file_path": "/b"}), ("usage", 10, 7, 0, 0), ("stop", "tool_use")]
    assert got[1] == [("usage", 12, 1, 0, 0), ("stop", "end_turn")]
    assert got[2][0] == ("text", "日本語 ✓ «quotes» \"esc\" \\ 🎉")
    assert "additionalProperties" not in tools[0]["parameters"]


def test_usage_and_thinking_budget() -> None:
    with FakeLLM([Reply(text="x", usage=Usage(100, 40, cache_read_tokens=60, reasoning_tokens=30))]) as fake:
        norm, err = stream_once(make(fake), request())
        gen = fake.requests[0].body["generationConfig"]
    assert err is None and ("usage", 100, 40, 60, 30) in norm
    assert gen["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 1024}


def test_gemini3_calls_carry_a_signature() -> None:
    msgs = (Message.user("x"), Message("assistant", (ToolUseBlock("toolu_1", "Read", {"file_path": "a"}),)),
            Message("user", (ToolResultBlock("toolu_1", "data"),)))
    body = build_body(ModelRequest("gemini-3-pro-preview", "", msgs), {})
    assert body["contents"][1]["parts"][0]["thoughtSignature"] == SKIP_SIGNATURE
    assert body["contents"][2]["parts"][0]["functionResponse"] == {"name": "Read", "response": {"output": "data"}}


def test_no_key_names_the_env_var() -> None:
    p = GeminiProvider(ProviderConfig("google"))
    _, err = stream_once(p, request())
    assert isinstance(err, AuthError) and "GEMINI_API_KEY" in err.one_line()


def test_rejected_key_is_an_auth_error() -> None:
    with FakeLLM([Reply(fault=Fault("http", 400, "API key not valid. Please pass a valid API key.",
                                    error_type="INVALID_ARGUMENT"))]) as fake:
        _, err = stream_once(make(fake), request())
    assert isinstance(err, AuthError) and "GEMINI_API_KEY" in err.one_line()
    assert "gem-test-key" not in err.one_line()


@pytest.mark.parametrize(("fault", "code"), RETRYABLE_FAULTS)
def test_retryable_faults(fault, code) -> None:  # type: ignore[no-untyped-def]
    with FakeLLM() as fake:
        check_retried(lambda: make(fake), request(), fake, fault, code)


def test_exhausted_retries_exit_75() -> None:
    with FakeLLM() as fake:
        check_exhausted(lambda: make(fake), request(), fake)


@pytest.mark.parametrize(("kind", "error"), MID_STREAM_FAULTS)
def test_mid_stream_faults_keep_output(kind, error) -> None:  # type: ignore[no-untyped-def]
    with FakeLLM() as fake:
        check_mid_stream(lambda: make(fake), request(), fake, kind, error, after=2)


def test_slow_headers_time_out() -> None:
    with FakeLLM() as fake:
        check_slow_headers(lambda: make(fake), request(), fake)


def sdk_normalized(fake: FakeLLM, n: int) -> list[list[tuple[object, ...]]]:
    """What the official google-genai SDK makes of the next `n` scripted replies, in our normalized form."""
    from google import genai
    from google.genai import types

    client = genai.Client(api_key="gem-test", http_options=types.HttpOptions(base_url=fake.url))
    out = []
    for _ in range(n):
        norm: list[tuple[object, ...]] = []
        calls, meta = 0, None
        for chunk in client.models.generate_content_stream(model=MODEL, contents="go"):
            cand = (chunk.candidates or [None])[0]
            for p in (cand.content.parts or []) if cand and cand.content else []:
                if p.function_call:
                    calls += 1
                    norm.append(("call", p.function_call.name, p.function_call.args))
                elif p.text:
                    add(norm, "thinking" if p.thought else "text", p.text)
            meta = chunk.usage_metadata or meta
        assert meta is not None
        thoughts = meta.thoughts_token_count or 0
        norm.append(("usage", meta.prompt_token_count, (meta.candidates_token_count or 0) + thoughts, 0, thoughts))
        norm.append(("stop", "tool_use" if calls else "end_turn"))
        out.append(norm)
    return out


def test_the_sdk_and_the_adapter_see_the_same_three_tool_task(tmp_path: Path) -> None:
    replies = three_tool_replies(tmp_path / "f.txt")
    with FakeLLM(replies) as fake:
        ours = replay_requests(lambda: make(fake), MODEL, replies)
        fake.push(*replies)
        theirs = sdk_normalized(fake, len(replies))
        assert fake.violations == []
    assert ours == theirs
