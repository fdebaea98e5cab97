"""One trust store (SSL_CERT_FILE / SSL_CERT_DIR) on every path, TLS errors that say what is wrong, HTTPS
through a CONNECT proxy, and NO_PROXY with CIDR ranges. Real TLS and a real proxy, on loopback."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from agentcli.errors import ConfigError, ProviderError
from agentcli.net.errors import TlsError
from agentcli.net.http import HttpClient, proxy_for
from agentcli.providers.base import ProviderConfig
from agentcli.providers.factory import make_provider
from tests.fakes import FakeLLM, Reply
from tests.providers.helpers import request
from tests.providers.netkit import ConnectProxy, Raw, Socks5Proxy, answer, make_cert, server_tls


async def _serve_ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
    await raw.read_request(reader)
    writer.write(answer(b'{"data": [{"id": "m1"}]}'))
    await writer.drain()


async def _get(client: HttpClient, url: str) -> bytes:
    try:
        return await (await client.send("GET", url)).read()
    finally:
        await client.aclose()


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    tmp = tmp_path_factory.mktemp("certs")
    return {"ip": make_cert(tmp, "127.0.0.1", "localhost"), "name": make_cert(tmp, "localhost"),
            "remote": make_cert(tmp, "api.example.test")}


def test_ssl_cert_file_is_honoured(certs: dict[str, tuple[Path, Path]]) -> None:
    cert, key = certs["ip"]

    async def run() -> tuple[bytes, BaseException]:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw:
            url = f"https://127.0.0.1:{raw.port}/v1/models"
            body = await _get(HttpClient(env={"SSL_CERT_FILE": str(cert)}), url)
            try:
                await _get(HttpClient(env={}), url)  # the system store does not know this CA
            except TlsError as e:
                return body, e
        raise AssertionError("an untrusted certificate was accepted")

    body, err = asyncio.run(run())
    assert b"m1" in body
    assert isinstance(err, TlsError) and err.code == "tls" and not err.retryable and err.exit_status == 1
    assert "not trusted" in err.message and "SSL_CERT_FILE" in (err.hint or "")


def test_ssl_cert_dir_is_honoured(certs: dict[str, tuple[Path, Path]], tmp_path: Path) -> None:
    cert, key = certs["ip"]
    digest = subprocess.run(["openssl", "x509", "-hash", "-noout", "-in", str(cert)], capture_output=True,
                            text=True, check=True).stdout.strip()
    shutil.copy(cert, tmp_path / f"{digest}.0")

    async def run() -> bytes:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw:
            return await _get(HttpClient(env={"SSL_CERT_DIR": str(tmp_path)}), f"https://127.0.0.1:{raw.port}/")

    assert b"m1" in asyncio.run(run())


def test_the_probe_path_uses_the_same_trust_store(certs: dict[str, tuple[Path, Path]],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """SSL_CERT_FILE from the process environment reaches every client, here the model probe's."""
    from agentcli.providers.probe import list_live

    cert, key = certs["ip"]
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))

    async def run() -> list[str]:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw:
            return [m.name for m in await list_live("openai", f"https://127.0.0.1:{raw.port}/v1")]

    assert asyncio.run(run()) == ["m1"]


def test_a_missing_ssl_cert_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"SSL_CERT_FILE=.* does not exist"):
        asyncio.run(_get(HttpClient(env={"SSL_CERT_FILE": str(tmp_path / "nope.pem")}), "https://127.0.0.1:9/"))


@pytest.mark.parametrize(("cert_for", "host", "says"), [("remote", "localhost", "Hostname mismatch"),
                                                        ("name", "127.0.0.1", "IP address mismatch")])
def test_hostname_mismatch_is_a_clear_tls_error(certs: dict[str, tuple[Path, Path]], cert_for: str, host: str,
                                                says: str) -> None:
    """A trusted certificate, but for another name: refused, with an error naming the host, not retried."""
    cert, key = certs[cert_for]

    async def run() -> tuple[BaseException, int]:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw:
            try:
                await _get(HttpClient(env={"SSL_CERT_FILE": str(cert)}), f"https://{host}:{raw.port}/v1")
            except TlsError as e:
                return e, len(raw.heads)
        raise AssertionError("a certificate for another host was accepted")

    err, requests_seen = asyncio.run(run())
    assert requests_seen == 0
    assert err.code == "tls" and not err.retryable  # type: ignore[attr-defined]
    assert f"is not valid for {host}" in str(err) and says in str(err)


def test_provider_tls_failure_is_not_retried(certs: dict[str, tuple[Path, Path]],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = certs["name"]
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))

    async def run() -> tuple[list[object], BaseException, float]:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw:
            t0 = time.monotonic()
            p = make_provider(ProviderConfig("openai", base_url=f"https://127.0.0.1:{raw.port}/v1", api_key="k",
                                             max_retries=3, retry_base_delay_s=5))
            events: list[object] = []
            try:
                async for ev in p.stream(request()):
                    events.append(ev)
            except TlsError as e:
                return events, e, time.monotonic() - t0
            finally:
                await p.aclose()
        raise AssertionError("no TLS error")

    events, err, elapsed = asyncio.run(run())
    assert events == [] and "not valid for" in str(err)
    assert elapsed < 4  # a retry would first wait retry_base_delay_s = 5 s


def test_https_through_a_connect_proxy(certs: dict[str, tuple[Path, Path]]) -> None:
    """HTTPS_PROXY: the client asks the proxy to CONNECT to the remote name, then speaks TLS through the
    tunnel, checking the certificate against that name with the same trust store."""
    cert, key = certs["remote"]

    async def run() -> tuple[bytes, list[str], list[bytes], BaseException]:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw, ConnectProxy(raw.port) as proxy:
            env = {"HTTPS_PROXY": proxy.url, "SSL_CERT_FILE": str(cert), "NO_PROXY": "localhost,10.0.0.0/8"}
            body = await _get(HttpClient(env=env), "https://api.example.test/v1/models")
            try:
                await _get(HttpClient(env={"HTTPS_PROXY": proxy.url}), "https://api.example.test/v1/models")
            except TlsError as e:
                return body, proxy.connects, raw.heads, e
        raise AssertionError("an untrusted certificate was accepted through the proxy")

    body, connects, heads, err = asyncio.run(run())
    assert b"m1" in body
    assert connects[0] == "CONNECT api.example.test:443 HTTP/1.1"
    assert heads[0].startswith(b"GET /v1/models HTTP/1.1") and b"host: api.example.test" in heads[0].lower()
    assert "not trusted" in str(err)


def test_https_through_a_socks5_proxy(certs: dict[str, tuple[Path, Path]]) -> None:
    """ALL_PROXY=socks5://…: the remote name is resolved by the proxy, TLS checked against it end to end."""
    cert, key = certs["remote"]

    async def run() -> tuple[bytes, list[tuple[str, int]]]:
        async with Raw(_serve_ok, tls=server_tls(cert, key)) as raw, Socks5Proxy(raw.port) as proxy:
            env = {"ALL_PROXY": proxy.url, "SSL_CERT_FILE": str(cert)}
            return await _get(HttpClient(env=env), "https://api.example.test/v1/models"), proxy.asked

    body, asked = asyncio.run(run())
    assert b"m1" in body and asked == [("api.example.test", 443)]


def test_plain_http_through_a_proxy(fake_llm: FakeLLM) -> None:
    """HTTP_PROXY: the request goes (absolute-form) to the proxy, here the fake itself."""
    fake_llm.push(Reply(text="via proxy"))

    async def run() -> bytes:
        client = HttpClient(env={"HTTP_PROXY": fake_llm.url})
        try:
            resp = await client.send("POST", "http://api.example.invalid/v1/messages", json={"model": "m",
                                     "max_tokens": 5, "stream": True, "messages": [{"role": "user", "content": "x"}]})
            return await resp.read()
        finally:
            await client.aclose()

    assert b"via prox" in asyncio.run(run())
    assert fake_llm.requests[0].path == "/v1/messages"


def test_a_dead_proxy_is_reported_as_such() -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    client = HttpClient(env={"HTTPS_PROXY": f"http://user:s3cret@127.0.0.1:{port}"})
    with pytest.raises(ProviderError) as e:
        asyncio.run(_get(client, "https://api.example.test/v1/models"))
    assert "s3cret" not in e.value.one_line() and f"127.0.0.1:{port}" in e.value.one_line()
    assert e.value.code == "proxy" and not e.value.retryable and "HTTPS_PROXY" in (e.value.hint or "")


@pytest.mark.parametrize(
    ("url", "env", "expected"),
    [
        ("https://api.anthropic.com/v1", {"HTTPS_PROXY": "http://p:1"}, "http://p:1"),
        ("https://api.anthropic.com/v1", {"HTTP_PROXY": "http://p:1"}, None),
        ("http://api.x.com/v1", {"http_proxy": "http://p:2"}, "http://p:2"),
        ("https://api.x.com/v1", {"ALL_PROXY": "socks5://p:3"}, "socks5://p:3"),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "p:3128"}, "http://p:3128"),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "x.com"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": ".x.com"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "*.x.com"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "no_proxy": "*"}, None),
        ("https://api.x.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "y.com,x.com:8443"}, "http://p"),
        ("https://api.x.com:8443/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "x.com:8443"}, None),
        ("https://notx.com/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "x.com"}, "http://p"),
        ("http://10.1.2.3:8000/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "10.0.0.0/8"}, None),
        ("http://10.1.2.3:8000/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "192.168.0.0/16, 10.1.0.0/16"}, None),
        ("http://11.1.2.3:8000/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "10.0.0.0/8"}, "http://p"),
        ("http://192.168.7.9/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "192.168.7.9"}, None),
        ("http://[fd00::5]:80/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "fd00::/8"}, None),
        ("http://[fe80::5]:80/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "fd00::/8"}, "http://p"),
        ("http://10.1.2.3.evil.com/v1", {"HTTP_PROXY": "http://p", "NO_PROXY": "10.0.0.0/8"}, "http://p"),
        ("http://127.0.0.1:8080/v1", {"HTTP_PROXY": "http://p"}, None),
        ("http://localhost:11434", {"ALL_PROXY": "http://p"}, None),
        ("http://127.evil.com:11434", {"ALL_PROXY": "http://p"}, "http://p"),
    ],
)
def test_proxy_for(url: str, env: dict[str, str], expected: str | None) -> None:
    assert proxy_for(url, env) == expected


def test_webfetch_uses_the_same_trust_store(certs: dict[str, tuple[Path, Path]],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The one trust store reaches the tools' HTTP too: WebFetch trusts a CA given by SSL_CERT_FILE."""
    from agentcli.tools.webfetch import fetch

    cert, key = certs["ip"]

    async def serve_page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: Raw) -> None:
        await raw.read_request(reader)
        body = b"<html><body><p>inspected but trusted</p></body></html>"
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: %d\r\n\r\n%b" % (len(body), body))
        await writer.drain()

    async def run(trusted: bool) -> str:
        if trusted:
            monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        else:
            monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        async with Raw(serve_page, tls=server_tls(cert, key)) as raw:
            page = await fetch(f"https://localhost:{raw.port}/", frozenset({"localhost"}))
            return page.text

    assert "inspected but trusted" in asyncio.run(run(True))
    with pytest.raises(Exception, match=r"(?i)certificate"):
        asyncio.run(run(False))
