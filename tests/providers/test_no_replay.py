"""A POST that may have reached the server is never sent again on its own (no duplicate billed calls); what
provably never left this machine may be retried; a local server that is down fails at once."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import pytest

from agentcli.core.events import ApiRetry, TextDelta
from agentcli.errors import AuthError
from agentcli.net.errors import ConnectError, ConnectionDropped, LocalServerDown
from agentcli.net.http import HttpClient, is_loopback, is_loopback_url
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import ProviderConfig
from agentcli.providers.factory import make_provider
from agentcli.providers.openai_chat import OpenAIChatProvider
from tests.fakes import FakeLLM, Fault, Reply
from tests.providers.helpers import collect, collect_until_error, request
from tests.providers.netkit import Raw, answer

FAST = {"retry_base_delay_s": 0.001, "retry_max_delay_s": 0.01}


@pytest.mark.parametrize("name", ["anthropic", "openai"])
def test_server_closing_after_the_request_gets_it_exactly_once(fake_llm: FakeLLM, name: str) -> None:
    fake_llm.push(Reply(fault=Fault("drop_before")), Reply(text="a second, billed answer"))
    base = fake_llm.url if name == "anthropic" else fake_llm.openai_url
    p = make_provider(ProviderConfig(name, base_url=base, api_key="k", max_retries=4, **FAST))
    events, err = collect_until_error(p, request())
    assert len(fake_llm.requests) == 1
    assert not any(isinstance(e, ApiRetry) for e in events)
    assert isinstance(err, ConnectionDropped) and err.code == "unavailable" and err.exit_status == 75
    assert "closed the connection after receiving the request" in err.one_line()
    assert "not sent again automatically" in err.one_line()


def test_a_kept_alive_connection_closed_under_a_request_is_not_replayed() -> None:
    """The server answers the first request on a connection, then reads the second one and closes: the second
    arrives once, and the client reports it instead of sending it again on a fresh connection."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        writer.write(answer(b"first"))
        await writer.drain()
        await raw.read_request(reader)  # then close without answering

    async def run() -> tuple[bytes, BaseException, int, int]:
        async with Raw(handler) as raw:
            client = HttpClient()
            url = f"http://127.0.0.1:{raw.port}/v1/messages"
            first = await (await client.send("POST", url, json={"n": 1})).read()
            try:
                await client.send("POST", url, json={"n": 2})
            except ConnectionDropped as e:
                err: BaseException = e
            else:
                raise AssertionError("the dropped request was not reported")
            # no wait for a late replay: one would be made inside `send`, on a new connection the handler answers,
            # so `send` would have returned instead of raising (and `connections` would be 2)
            await client.aclose()
            return first, err, len(raw.heads), raw.connections

    first, err, heads, conns = asyncio.run(run())
    assert first == b"first" and heads == 2 and conns == 1
    assert "before responding" in str(err)


def test_output_then_drop_is_a_cut_stream_asked_again_and_says_so(fake_llm: FakeLLM) -> None:
    """Issue 26: a stream cut mid-reply is retried (nothing irreversible has happened); the notice does not claim
    the request was not resent."""
    fake_llm.push(Reply(text="abcdefghijklmnop", chunk_size=2, fault=Fault("drop_mid", after_events=5)),
                  Reply(text="again"))
    p = make_provider(ProviderConfig("anthropic", base_url=fake_llm.url, api_key="k", max_retries=3, **FAST))
    events = collect(p, request())
    retry = next(e for e in events if isinstance(e, ApiRetry))
    assert retry.discarded and "not sent again" not in retry.message and "cut" in retry.message
    assert len(fake_llm.requests) == 2


def test_a_cut_stream_is_not_retried_past_max_retries(fake_llm: FakeLLM) -> None:
    fake_llm.push(*[Reply(text="abcdefghijklmnop", chunk_size=2, fault=Fault("drop_mid", after_events=5))] * 3)
    p = make_provider(ProviderConfig("anthropic", base_url=fake_llm.url, api_key="k", max_retries=1, **FAST))
    events, err = collect_until_error(p, request())
    assert isinstance(err, ConnectionDropped) and len(fake_llm.requests) == 2
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).startswith("ab")


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def test_local_server_down_fails_fast_with_a_hint() -> None:
    port = _free_port()
    p = make_provider(ProviderConfig("openai", base_url=f"http://127.0.0.1:{port}/v1", max_retries=4,
                                     retry_base_delay_s=30.0))
    t0 = time.monotonic()
    events, err = collect_until_error(p, request())
    # no backoff: one retry alone would wait 30 s; the bound is far from what a loaded machine needs for a refusal
    assert time.monotonic() - t0 < 20.0
    assert events == []
    assert isinstance(err, LocalServerDown) and not err.retryable
    line = err.one_line()
    assert f"http://127.0.0.1:{port}" in line and "llama-server" in line and "curl" in line


def test_remote_connect_failure_is_retried_and_loopback_is_not() -> None:
    """Refused by a remote host: nothing was sent, so the retry layer may try again; refused on loopback: the
    local server is down and retrying will not start it."""
    import httpx

    from agentcli.net.mapping import map_httpx_error

    def refused() -> httpx.ConnectError:
        e = httpx.ConnectError("All connection attempts failed")
        e.__cause__ = ConnectionRefusedError(111, "Connection refused")
        return e

    remote = map_httpx_error(refused(), "https://api.example.com/v1/messages", phase="first_byte")
    local = map_httpx_error(refused(), "http://[::1]:8080/v1/chat/completions", phase="first_byte")
    assert type(remote) is ConnectError and remote.retryable and "connection refused" in str(remote)
    assert isinstance(local, LocalServerDown) and not local.retryable and "http://[::1]:8080" in str(local)


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("127.255.255.254", True), ("[::1]", True), ("::1", True),
    ("localhost", True), ("LOCALHOST", True), ("[::ffff:127.0.0.1]", True),
    ("127.evil.com", False), ("127.0.0.1.nip.io", False), ("localhost.evil.com", False), ("evil-localhost", False),
    ("128.0.0.1", False), ("0.0.0.0", False), ("::", False), ("", False), ("api.openai.com", False),
])
def test_loopback_is_decided_by_parsing_the_address(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
    netloc = f"[{host}]" if ":" in host and not host.startswith("[") else host
    assert is_loopback_url(f"http://{netloc}:8080/v1") is loopback


@pytest.mark.parametrize("cls", [OpenAIChatProvider, AnthropicProvider])
def test_127_evil_com_needs_its_api_key(cls: type) -> None:
    p = cls(ProviderConfig("x", base_url="http://127.evil.com:8080/v1"))
    with pytest.raises(AuthError, match="API_KEY is not set"):
        p.check_credentials()
    cls(ProviderConfig("x", base_url="http://127.0.0.2:8080/v1")).check_credentials()  # loopback: no key needed
    cls(ProviderConfig("x", base_url="http://[::1]:8080/v1")).check_credentials()


def test_a_loopback_server_with_no_key_works(fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="local"))
    events = collect(OpenAIChatProvider(ProviderConfig("openai", base_url=fake_llm.openai_url)), request())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "local"


def test_cli_against_a_stopped_local_server_fails_fast_with_the_hint(tmp_path: Path) -> None:
    """Issue 11: `agentcli -p` with a loopback --base-url where nothing listens used to retry 4 times (6.5 s)
    with no hint. Now: one attempt, exit 75, one line naming the URL and how to start or check the server."""
    from tests.cli.helpers import agentcli

    port = _free_port()
    t0 = time.monotonic()
    run = agentcli(["-p", "hi", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "openai/local"], tmp_path)
    elapsed = time.monotonic() - t0
    assert run.status == 75, run.stderr
    assert f"http://127.0.0.1:{port}" in run.stderr and "llama-server" in run.stderr
    assert f"curl http://127.0.0.1:{port}/v1/models" in run.stderr
    assert "retry" not in run.stderr.lower()
    assert elapsed < 5, elapsed  # the four retries alone waited 0.5+1+2+4 s before
