"""OAuth for HTTP MCP servers, against a real OAuth-protected MCP server on loopback (the SDK's server-side auth:
tests/mcp/servers/oauth.py) and a test "browser" that follows the authorization URL with httpx."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentcli import paths
from agentcli.errors import McpAuthError
from agentcli.mcp.config import McpConfig, ServerConfig
from agentcli.mcp.manager import McpManager
from agentcli.mcp.oauth_store import token_file
from agentcli.tools.base import ToolContext
from tests.mcp.servers.oauth import OAuthMcpServer


@pytest.fixture
def guarded() -> Iterator[OAuthMcpServer]:
    with OAuthMcpServer() as srv:
        yield srv


class Browser:
    """Stands in for the user's browser: follows the authorization URL agentcli shows, redirects included (the
    authorization server approves at once and sends it back to agentcli's loopback listener)."""

    def __init__(self, tamper: Any = None) -> None:
        self.said: list[str] = []
        self.pages: list[httpx.Response] = []
        self.tamper = tamper  # url -> url: what a hostile page would open instead
        self.threads: list[threading.Thread] = []
        self.failed: list[Exception] = []

    def announce(self, text: str) -> None:
        self.said.append(text)
        urls = [w for w in text.split() if w.startswith("http")]
        if urls:
            url = self.tamper(urls[0]) if self.tamper else urls[0]
            thread = threading.Thread(target=self._open, args=(url,))
            thread.start()
            self.threads.append(thread)

    def _open(self, url: str) -> None:
        try:
            self.pages.append(httpx.get(url, follow_redirects=True))
        except httpx.HTTPError as err:  # the listener closed first (a login that gave up): what a browser shows
            self.failed.append(err)

    def join(self) -> None:
        for t in self.threads:
            t.join(10)


def server(srv: OAuthMcpServer, name: str = "guarded") -> ServerConfig:
    return ServerConfig(name, "http", "user", "test", url=srv.url)


def manager(*cfgs: ServerConfig) -> McpManager:
    return McpManager(McpConfig(servers={c.name: c for c in cfgs}), Path.cwd(), grace_s=None)


async def started(*cfgs: ServerConfig) -> McpManager:
    m = manager(*cfgs)
    m.start()
    await m.refresh()
    return m


async def call_whoami(m: McpManager) -> str:
    tool = next(t for t in m.all_tools() if t.name == "mcp__guarded__whoami")
    out = await tool.run({"greeting": "hi"}, ToolContext(project_root=Path.cwd()))
    assert not out.is_error, out.content
    return out.content


def test_login_call_and_refresh_across_restarts(guarded: OAuthMcpServer) -> None:
    cfg = server(guarded)

    async def main() -> None:
        before = await started(cfg)
        assert before.servers() == [("guarded", "needs-auth")]
        notices = before.notices()
        assert notices == [("warning", "MCP server 'guarded' needs authentication: run `agentcli mcp login "
                                       "guarded` (or /mcp login guarded in the REPL)")]
        assert "needs the user to log in" in str(before.lookup("mcp__guarded__whoami"))
        from agentcli.mcp.status import mcp_status

        assert mcp_status(before)["mcpServers"][0] | {"config": None} == {
            "name": "guarded", "status": "needs-auth", "scope": "user", "config": None,
            "error": "needs authentication: run `agentcli mcp login guarded` (or /mcp login guarded in the REPL)"}
        browser = Browser()
        said = await before.login("guarded", browser.announce, browser=False, timeout_s=20)
        browser.join()
        assert said == "Logged in to MCP server 'guarded' (1 tools)"
        assert browser.pages[0].text == "agentcli is logged in. You can close this page."
        assert before.servers() == [("guarded", "connected")]  # reconnected with the new login
        assert "pineapple" in await call_whoami(before)
        await before.aclose()
        # A restart uses the stored login: no browser, no new authorization.
        again = await started(cfg)
        assert "pineapple" in await call_whoami(again)
        await again.aclose()
        assert guarded.provider.authorizations == 1 and guarded.provider.refreshes == 0
        # Time passes: the access token ends. The next start refreshes it (the SDK, with the stored refresh token,
        # at the token endpoint it discovered at login), before the server would refuse it.
        stored = json.loads(token_file(cfg.url).read_text())
        guarded.provider.expire_access()
        stored["expires_at"] = 0
        token_file(cfg.url).write_text(json.dumps(stored))
        later = await started(cfg)
        assert "pineapple" in await call_whoami(later)
        await later.aclose()
        assert guarded.provider.refreshes == 1 and guarded.provider.authorizations == 1
        renewed = json.loads(token_file(cfg.url).read_text())
        assert renewed["tokens"]["access_token"] != stored["tokens"]["access_token"]
        assert guarded.calls == ["hi", "hi", "hi"]

    asyncio.run(main())
    where = token_file(cfg.url)
    assert where.parent == paths.home() / "mcp-auth"
    assert stat.S_IMODE(where.stat().st_mode) == 0o600 and stat.S_IMODE(where.parent.stat().st_mode) == 0o700


def test_a_token_refused_mid_session_is_a_login_to_do_not_a_crash(guarded: OAuthMcpServer) -> None:
    cfg = server(guarded)

    async def main() -> None:
        m = await started(cfg)
        browser = Browser()
        await m.login("guarded", browser.announce, browser=False, timeout_s=20)
        browser.join()
        assert "pineapple" in await call_whoami(m)
        m.notices()
        guarded.provider.expire_access()  # revoked by the server, long before its stated end
        tool = next(t for t in m.all_tools() if t.name == "mcp__guarded__whoami")
        out = await tool.run({"greeting": "again"}, ToolContext(project_root=Path.cwd()))
        assert out.is_error and "needs the user to log in (agentcli mcp login guarded)" in out.content
        assert m.servers() == [("guarded", "needs-auth")]
        assert [n for _, n in m.notices()] == ["MCP server 'guarded' needs authentication: run `agentcli mcp "
                                               "login guarded` (or /mcp login guarded in the REPL)"]
        await m.aclose()

    asyncio.run(main())


def test_a_session_adopts_tokens_another_session_refreshed(guarded: OAuthMcpServer) -> None:
    """Two agentcli sessions on one login: the second refreshes (the server rotates the refresh token); the first,
    holding the old tokens, takes the stored new ones instead of failing a refresh or asking for a login."""
    cfg = server(guarded)

    async def main() -> None:
        first = await started(cfg)
        browser = Browser()
        await first.login("guarded", browser.announce, browser=False, timeout_s=20)
        browser.join()
        assert "pineapple" in await call_whoami(first)
        stored = json.loads(token_file(cfg.url).read_text())
        guarded.provider.expire_access()
        stored["expires_at"] = 1
        token_file(cfg.url).write_text(json.dumps(stored))
        second = await started(cfg)  # refreshes at once: its stored token has ended
        assert "pineapple" in await call_whoami(second)
        assert guarded.provider.refreshes == 1
        assert "pineapple" in await call_whoami(first)  # with the second's tokens, no refresh of its own
        assert guarded.provider.refreshes == 1 and first.servers() == [("guarded", "connected")]
        await first.aclose()
        await second.aclose()

    asyncio.run(main())


def test_login_over_legacy_sse() -> None:
    with OAuthMcpServer("sse") as srv:
        cfg = ServerConfig("guarded", "sse", "user", "test", url=srv.url)

        async def main() -> None:
            m = await started(cfg)
            assert m.servers() == [("guarded", "needs-auth")]
            browser = Browser()
            assert await m.login("guarded", browser.announce, browser=False, timeout_s=20) == \
                "Logged in to MCP server 'guarded' (1 tools)"
            browser.join()
            assert "pineapple" in await call_whoami(m)
            await m.aclose()

        asyncio.run(main())
        assert srv.calls == ["hi"]


def test_a_token_goes_only_to_the_url_it_was_issued_for(guarded: OAuthMcpServer) -> None:
    """A project's server of the same name at another URL gets no Authorization header from the login of the
    user's: the stored login belongs to the URL, whatever the configuration names it."""
    cfg = server(guarded)

    async def main() -> None:
        m = manager(cfg)
        browser = Browser()
        await m.login("guarded", browser.announce, browser=False, timeout_s=20)
        browser.join()
        await m.aclose()
        with OAuthMcpServer() as other:
            hostile = ServerConfig("guarded", "http", "project", ".mcp.json", url=other.url)
            m2 = await started(hostile)
            assert m2.servers() == [("guarded", "needs-auth")]
            await m2.aclose()
            assert other.seen_auth and set(other.seen_auth) == {""}
        assert any(h.startswith("Bearer at-") for h in guarded.seen_auth)

    asyncio.run(main())
    assert [p.name for p in (paths.home() / "mcp-auth").iterdir()] == [token_file(cfg.url).name]


def test_the_callback_wants_this_logins_state_and_a_login_times_out(guarded: OAuthMcpServer) -> None:
    cfg = server(guarded)

    def forged(url: str) -> str:  # a page that knows the port but not the state
        return url.replace("state=", "state=forged")

    async def main() -> None:
        m = manager(cfg)
        browser = Browser(tamper=forged)
        with pytest.raises(McpAuthError, match="no answer from the browser within 1 s"):
            await m.login("guarded", browser.announce, browser=False, timeout_s=1)
        browser.join()
        await m.aclose()
        assert browser.pages[0].status_code == 400  # the forged answer was refused; the login kept waiting
        assert not token_file(cfg.url).exists() or "tokens" not in json.loads(token_file(cfg.url).read_text())
        # With a login that works stored, a new login that fails leaves it in place.
        good = Browser()
        await m.login("guarded", good.announce, browser=False, timeout_s=20)
        good.join()
        before = json.loads(token_file(cfg.url).read_text())["tokens"]
        late = Browser(tamper=forged)
        with pytest.raises(McpAuthError):
            await m.login("guarded", late.announce, browser=False, timeout_s=0.5)
        late.join()
        assert json.loads(token_file(cfg.url).read_text())["tokens"] == before

    asyncio.run(main())


def test_a_server_without_oauth_is_said_to_need_no_login(tmp_path: Path) -> None:
    with OAuthMcpServer(protected=False) as srv:
        cfg = ServerConfig("open", "http", "user", "test", url=srv.url)

        async def main() -> str:
            m = manager(cfg)
            try:
                return await m.login("open", print, browser=False, timeout_s=5)
            finally:
                await m.aclose()

        assert asyncio.run(main()) == "MCP server 'open' did not ask for a login: it connects as it is (1 tools)"
        assert srv.seen_auth and set(srv.seen_auth) == {""}
    assert not token_file(cfg.url).exists()


def test_oauth_is_not_used_where_a_token_could_leak() -> None:
    from agentcli.mcp.oauth_store import unusable

    plain = ServerConfig("x", "http", "project", ".mcp.json", url="http://example.com/mcp")
    assert "https" in str(unusable(plain))
    own = ServerConfig("x", "http", "user", "cfg", url="https://example.com/mcp", headers={"Authorization": "k"})
    assert "Authorization" in str(unusable(own))
    assert unusable(ServerConfig("x", "http", "user", "cfg", url="http://127.0.0.1:9/mcp")) is None


def test_only_an_https_authorization_page_is_shown_or_opened() -> None:
    from agentcli.mcp.oauth import unsafe_page

    assert unsafe_page("https://auth.example.com/authorize?state=x") is None
    assert unsafe_page("http://127.0.0.1:8080/authorize?state=x") is None
    for bad in ("http://auth.example.com/authorize", "file:///etc/passwd", "javascript:alert(1)",
                "ms-settings:x", "https://auth.example.com/a\x1b]52;c;AAAA\x07", "https://a.example/ b"):
        assert unsafe_page(bad) is not None, bad


def test_login_refuses_unknown_and_untrusted_servers(tmp_path: Path) -> None:
    m = McpManager(McpConfig(untrusted={"repo": ServerConfig("repo", "http", "project", ".mcp.json",
                                                             url="https://example.com/mcp")}), tmp_path)

    async def main() -> None:
        with pytest.raises(McpAuthError, match="not trusted yet"):
            await m.login("repo", print)
        with pytest.raises(McpAuthError, match="not configured"):
            await m.login("nothing", print)

    asyncio.run(main())
    assert not os.path.exists(paths.home() / "mcp-auth")


def test_a_stored_token_never_reaches_an_error_message() -> None:
    from agentcli.mcp.connection import describe_error

    cfg = ServerConfig("x", "http", "user", "cfg", url="https://example.com/mcp")
    where = token_file(cfg.url)
    where.parent.mkdir(parents=True)
    where.write_text(json.dumps({"url": cfg.url, "tokens": {"access_token": "opaque-token-1234567",
                                                            "refresh_token": "opaque-refresh-7654321"}}))
    said = describe_error(RuntimeError("server said: opaque-token-1234567 / opaque-refresh-7654321 is bad"), cfg)
    assert "opaque" not in said and "server said:" in said
