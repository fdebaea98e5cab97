"""The OpenAI Responses adapter against the fake: the openai SDK agrees with the fake, the three-tool task
through the agent loop matches the Anthropic adapter event for event, round trips, faults."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.llm.messages import Message
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.providers.openai_responses import OpenAIResponsesProvider, build_body, needs_responses_api
from tests.fakes import FakeLLM, Reply, ToolCall, Usage
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
    three_tool_replies,
    three_tool_run,
)

MODEL = "o3"


def make(fake: FakeLLM) -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider(ProviderConfig("openai-responses", base_url=fake.openai_url, api_key="sk-test-1",
                                                  max_retries=2, retry_base_delay_s=0, request_timeout_s=5))


def request() -> ModelRequest:
    return ModelRequest(MODEL, "be brief", (Message.user("hi"),), TOOL_SPECS, max_tokens=256, effort="low")


def test_openai_sdk_reads_the_fake() -> None:
    import openai

    reply = Reply(thinking="think", text="héllo", args_chunk_size=2, usage=Usage(20, 9, cache_read_tokens=5,
                                                                                reasoning_tokens=4),
                  tool_calls=[ToolCall("Read", {"file_path": "a"}), ToolCall("Bash", {"command": "ls"})])
    with FakeLLM([reply]) as fake:
        client = openai.OpenAI(api_key="sk-test", base_url=fake.openai_url, max_retries=0)
        with client.responses.stream(model=MODEL, input="hi", reasoning={"effort": "low", "summary": "auto"},
                                     tools=[{"type": "function", "name": "Read", "parameters": {}, "strict": False}],
                                     ) as stream:
            kinds = [ev.type for ev in stream]
            final = stream.get_final_response()
        client.close()
        assert fake.violations == []
    assert "response.reasoning_summary_text.delta" in kinds
    assert final.output_text == "héllo"
    calls = [o for o in final.output if o.type == "function_call"]
    assert [(c.name, c.arguments) for c in calls] == [("Read", '{"file_path":"a"}'), ("Bash", '{"command":"ls"}')]
    assert final.usage is not None and final.usage.output_tokens_details.reasoning_tokens == 4


def test_three_tool_task_matches_the_anthropic_adapter(tmp_path: Path) -> None:
    with FakeLLM() as fake:
        got = three_tool_run(tmp_path, fake, make, MODEL)
    assert got == anthropic_reference(tmp_path)
    assert got[-1][:3] == ("result", "success", "Done: it says héllo 🌍.")


def test_round_trips() -> None:
    with FakeLLM(round_trip_replies()) as fake:
        got = replay_requests(lambda: make(fake), MODEL, round_trip_replies())
        assert fake.violations == []
        sent = fake.requests[1].body
    assert got[0] == [("thinking", "Two files at once."), ("call", "Read", {"file_path": "/a/ü.txt"}),
                      ("call", "Read", {"file_path": "/b"}), ("usage", 10, 7, 0, 0), ("stop", "tool_use")]
    assert got[1] == [("usage", 12, 1, 0, 0), ("stop", "end_turn")]
    assert got[2][0] == ("text", "日本語 ✓ «quotes» \"esc\" \\ 🎉")
    assert [i["type"] for i in sent["input"]][-4:] == ["function_call", "function_call", "function_call_output",
                                                      "function_call_output"]
    assert sent["reasoning"] == {"effort": "low", "summary": "auto"} or "effort" not in sent["reasoning"]


def test_usage_splits_cached_and_reasoning_tokens() -> None:
    with FakeLLM([Reply(text="x", usage=Usage(100, 40, cache_read_tokens=60, reasoning_tokens=30))]) as fake:
        got = replay_requests(lambda: make(fake), MODEL, [Reply()])
    assert ("usage", 100, 40, 60, 30) in got[0]


def test_body_rules() -> None:
    body = build_body(request(), {})
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["store"] is False and "temperature" not in body
    plain = build_body(ModelRequest("gpt-4.1", "", (Message.user("x"),), temperature=0.2), {})
    assert "reasoning" not in plain and plain["temperature"] == 0.2
    assert needs_responses_api("o4-mini") and needs_responses_api("openai/gpt-5") and not needs_responses_api("gpt-4o")


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
        check_mid_stream(lambda: make(fake), request(), fake, kind, error, after=6)


def test_slow_headers_time_out() -> None:
    with FakeLLM() as fake:
        check_slow_headers(lambda: make(fake), request(), fake)


def test_an_anthropic_transcript_is_valid_for_every_adapter_here() -> None:
    """A conversation started on Anthropic (signed thinking, toolu_ ids, an image, an error result) continues on
    Responses, Gemini and Ollama: each request passes that API's wire rules."""
    from agentcli.llm.messages import ImageBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
    from agentcli.providers import gemini, ollama
    from tests.fakes.gemini import validate_generate_request
    from tests.fakes.ollama import validate_chat
    from tests.fakes.responses import validate_responses_request

    msgs = (
        Message("user", (TextBlock("look"), ImageBlock("image/png", "iVBORw0KGgo="))),
        Message("assistant", (ThinkingBlock("hmm", "sig-abc", "anthropic"), TextBlock("Reading."),
                              ToolUseBlock("toolu_01A", "Read", {"file_path": "a"}),
                              ToolUseBlock("toolu_01B", "Bash", {"command": "ls"}))),
        Message("user", (ToolResultBlock("toolu_01A", "data"), ToolResultBlock("toolu_01B", "boom", True))),
        Message("assistant", (TextBlock("Done."),)),
        Message.user("thanks"),
    )
    for model in ("o3", "gpt-4.1"):
        req = ModelRequest(model, "sys", msgs, TOOL_SPECS, max_tokens=100)
        body = build_body(req, {})
        assert validate_responses_request(body) == [], model
        assert "sig-abc" not in str(body)
    gbody = gemini.build_body(ModelRequest("gemini-3-pro-preview", "sys", msgs, TOOL_SPECS), {})
    assert validate_generate_request(gbody) == []
    obody = ollama.build_body(ModelRequest("qwen3", "sys", msgs, TOOL_SPECS), 4096, {})
    assert validate_chat(obody) == []
    assert [m["role"] for m in obody["messages"]] == ["system", "user", "assistant", "tool", "tool", "assistant",
                                                      "user"]


def sdk_normalized(fake: FakeLLM, n: int) -> list[list[tuple[object, ...]]]:
    """What the official openai SDK makes of the next `n` scripted replies, in our normalized form."""
    import json

    import openai

    client = openai.OpenAI(api_key="sk-test", base_url=fake.openai_url, max_retries=0)
    out = []
    for _ in range(n):
        norm: list[tuple[object, ...]] = []
        calls = 0
        with client.responses.stream(model=MODEL, input="go", reasoning={"summary": "auto"}) as stream:
            for ev in stream:
                kind = {"response.reasoning_summary_text.delta": "thinking", "response.output_text.delta": "text"}
                if ev.type in kind:
                    add(norm, kind[ev.type], ev.delta)
                elif ev.type == "response.output_item.done" and ev.item.type == "function_call":
                    calls += 1
                    norm.append(("call", ev.item.name, json.loads(ev.item.arguments)))
                elif ev.type == "response.completed":
                    u = ev.response.usage
                    assert u is not None
                    cached = u.input_tokens_details.cached_tokens
                    norm.append(("usage", u.input_tokens - cached, u.output_tokens, cached,
                                 u.output_tokens_details.reasoning_tokens))
                    norm.append(("stop", "tool_use" if calls else "end_turn"))
        out.append(norm)
    client.close()
    return out


def test_the_sdk_and_the_adapter_see_the_same_three_tool_task(tmp_path: Path) -> None:
    replies = three_tool_replies(tmp_path / "f.txt")
    with FakeLLM(replies) as fake:
        ours = replay_requests(lambda: make(fake), MODEL, replies)
        fake.push(*replies)
        theirs = sdk_normalized(fake, len(replies))
        assert fake.violations == []
    assert ours == theirs
