"""OAuth for HTTP MCP servers, through the `mcp` SDK's client (`OAuthClientProvider`), as Claude Code does it: a
server that answers 401 needs a login, which the user starts (`agentcli mcp login NAME`, `/mcp login NAME`); the
authorization URL is shown (and opened in a browser when there is one), the redirect comes back to a listener on
loopback, and the SDK registers the client, exchanges the code (PKCE) and later refreshes the token.

What is kept per server URL (agentcli.mcp.oauth_store says where): the tokens, the client the SDK registered, and
the metadata it discovered, so a refresh after a restart goes to the authorization server that issued the token.

A run that cannot ask anyone (every session: `-p` and the REPL alike connect without a browser) uses what is
stored; when that is not enough the server is "needs-auth" (agentcli.mcp.connection), never silently absent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from agentcli.atomicfile import atomic_write
from agentcli.errors import McpAuthError
from agentcli.mcp.config import ServerConfig
from agentcli.mcp.oauth_store import LOOPBACK, logged_in, read, token_file, unusable
from agentcli.mcp.oauth_store import secrets as login_secrets

LOGIN_TIMEOUT_S = 300.0  # for the user to finish in the browser
CALLBACK_PATH = "/callback"
EARLY_S = 60  # a stored token counts as expired this long before its end, so a restart refreshes it in time

# The SDK logs a failed flow with its traceback (`logger.exception`); with no handler configured that would reach
# stderr through logging's last resort. The failure itself is reported by agentcli, once, without it.
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())


class NeedsLogin(Exception):
    """The server wants an OAuth login that this run cannot do (nobody to open a browser for)."""


class StoredLogin:
    """The SDK's `TokenStorage` for one server URL. `keep_client`: whether a client the SDK registers is written
    down (during a login); a run that only refreshes never registers one worth keeping."""

    def __init__(self, url: str, *, keep_client: bool = False, fresh: bool = False) -> None:
        self.url = url
        self.path: Path = token_file(url)
        self.keep_client = keep_client
        # A login starts from no token, so the server asks for one; the stored tokens stay until new ones replace
        # them (a login that fails leaves the one that worked).
        self.fresh = fresh
        self.provider: OAuthClientProvider | None = None  # whose discovered metadata is kept with the tokens
        self._client: OAuthClientInformationFull | None = None

    def read(self) -> dict[str, Any]:
        return read(self.url)

    async def get_tokens(self) -> OAuthToken | None:
        if self.fresh:
            return None
        raw = self.read().get("tokens")
        try:
            return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        data = self.read()
        data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        data["expires_at"] = time.time() + tokens.expires_in - EARLY_S if tokens.expires_in is not None else None
        self._write(data)
        self.fresh = False

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self.read().get("client")
        try:
            return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else self._client
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._client = client_info
        if self.keep_client:
            data = self.read()
            data["client"] = client_info.model_dump(mode="json", exclude_none=True)
            self._write(data)

    def drop_client(self) -> None:
        data = self.read()
        if data.pop("client", None) is not None:
            self._write(data)

    def adopt_newer(self, provider: OAuthClientProvider) -> None:
        """Tokens in the file that are not the ones `provider` holds were written since by another process (or
        by a login): they replace the held ones, with their end."""
        ctx = provider.context
        raw = self.read().get("tokens")
        held = ctx.current_tokens.access_token if ctx.current_tokens is not None else None
        if not isinstance(raw, dict) or held is None or raw.get("access_token") == held:
            return  # nothing stored, not loaded yet (the SDK reads the file itself then), or the same
        try:
            ctx.current_tokens = OAuthToken.model_validate(raw)
        except ValueError:
            return
        expires = self.read().get("expires_at")
        ctx.token_expiry_time = max(float(expires), 1.0) if isinstance(expires, int | float) else None

    def restore(self, provider: OAuthClientProvider) -> None:
        """What the SDK discovered when the token was issued, and when the token ends (the SDK keeps both in
        memory only): a refresh after a restart then goes where it should, before the token is refused."""
        self.provider = provider
        data, ctx = self.read(), provider.context
        try:
            if isinstance(data.get("metadata"), dict):
                ctx.oauth_metadata = OAuthMetadata.model_validate(data["metadata"])
            if isinstance(data.get("resource_metadata"), dict):
                prm = ProtectedResourceMetadata.model_validate(data["resource_metadata"])
                ctx.protected_resource_metadata = prm
                ctx.auth_server_url = str(prm.authorization_servers[0]) if prm.authorization_servers else None
        except ValueError:
            ctx.oauth_metadata = ctx.protected_resource_metadata = ctx.auth_server_url = None
        expires = data.get("expires_at")
        # (at least 1: the SDK takes an expiry of 0 for "never")
        ctx.token_expiry_time = max(float(expires), 1.0) if isinstance(expires, int | float) and not self.fresh \
            else None

    def _write(self, data: dict[str, Any]) -> None:
        ctx = self.provider.context if self.provider is not None else None
        if ctx is not None and ctx.oauth_metadata is not None:
            data["metadata"] = ctx.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if ctx is not None and ctx.protected_resource_metadata is not None:
            data["resource_metadata"] = ctx.protected_resource_metadata.model_dump(mode="json", exclude_none=True)
        data["url"] = self.url
        directory = self.path.parent
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
        atomic_write(self.path, json.dumps(data, indent=1), new_mode=0o600)
        os.chmod(self.path, 0o600)


def client_metadata(redirect_uri: str) -> OAuthClientMetadata:
    return OAuthClientMetadata.model_validate({
        "client_name": "agentcli", "redirect_uris": [redirect_uri], "grant_types": ["authorization_code",
                                                                                   "refresh_token"],
        "response_types": ["code"], "token_endpoint_auth_method": "none"})


async def _cannot_ask(url: str) -> None:
    raise NeedsLogin("the server asks for a login")


async def _no_callback() -> AuthorizationCodeResult:
    raise NeedsLogin("the server asks for a login")


class SessionProvider(OAuthClientProvider):
    """The SDK's provider for a session's connection, which first adopts tokens another agentcli process stored
    since (its refresh rotated the refresh token this one holds: refreshing with the old one would fail)."""

    def __init__(self, cfg: ServerConfig, storage: StoredLogin, redirect: str) -> None:
        super().__init__(cfg.url, client_metadata(redirect), storage, _cannot_ask, _no_callback)
        self.storage = storage

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        self.storage.adopt_newer(self)
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()


def session_auth(cfg: ServerConfig) -> httpx2.Auth | None:
    """The auth of a session's connection: the stored login of this URL, refreshed by the SDK as needed; None
    when there is none (a server that then answers 401 is reported as needing a login)."""
    if not logged_in(cfg):
        return None
    storage = StoredLogin(cfg.url)
    client = stored_client(storage)
    # The registered redirect, for the record: a session never sends anyone to authorize (_cannot_ask).
    redirect = str(client.redirect_uris[0]) if client is not None and client.redirect_uris else \
        f"http://127.0.0.1:1{CALLBACK_PATH}"
    provider = SessionProvider(cfg, storage, redirect)
    storage.restore(provider)
    return provider


def stored_client(storage: StoredLogin) -> OAuthClientInformationFull | None:
    """The stored client, read outside the SDK's (async) storage calls."""
    raw = storage.read().get("client")
    try:
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None
    except ValueError:
        return None


# ---- the login --------------------------------------------------------------------------------------------------

class _Callback:
    """The loopback listener the browser is sent back to: one answer, for the `state` of this login only."""

    def __init__(self, port: int) -> None:
        self.state = ""
        self.loop = asyncio.get_running_loop()
        self.result: asyncio.Future[AuthorizationCodeResult] = self.loop.create_future()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.answer(self)

            def log_message(self, format: str, *args: Any) -> None:  # the query carries the code: never logged
                return

        self.server = HTTPServer(("127.0.0.1", port), Handler)
        # A short poll: closing the listener waits for the next one.
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), name="mcp-oauth-callback",
                                       daemon=True)

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{CALLBACK_PATH}"

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path != CALLBACK_PATH or not self.state or \
                not secrets.compare_digest(query.get("state", ""), self.state):
            # Not this login's answer (another page probing the port): refused, and the login goes on waiting.
            self._reply(handler, 400, "This is not the answer agentcli is waiting for.")
            return
        if "error" in query:
            why = f"{query['error']}: {query.get('error_description', '')}".strip(": ")
            self._reply(handler, 200, "The login was refused. You can close this page.")
            self.loop.call_soon_threadsafe(self._settle, McpAuthError(f"the authorization server said {why}"))
            return
        self._reply(handler, 200, "agentcli is logged in. You can close this page.")
        result = AuthorizationCodeResult(code=query.get("code", ""), state=query["state"], iss=query.get("iss"))
        self.loop.call_soon_threadsafe(self._settle, result)

    def _settle(self, value: AuthorizationCodeResult | Exception) -> None:
        if self.result.done():
            return
        if isinstance(value, Exception):
            self.result.set_exception(value)
        else:
            self.result.set_result(value)

    @staticmethod
    def _reply(handler: BaseHTTPRequestHandler, status: int, text: str) -> None:
        body = text.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "text/plain; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _listener(storage: StoredLogin) -> _Callback:
    """On the port the stored client was registered with (its redirect URI must match exactly), or on a new one;
    a new port means the old registration cannot be used, so the SDK registers again."""
    client = stored_client(storage)
    port = urlsplit(str(client.redirect_uris[0])).port if client is not None and client.redirect_uris else None
    if port:
        try:
            return _Callback(port)
        except OSError:
            pass
    storage.drop_client()
    return _Callback(0)


Announce = Callable[[str], None]
Connect = Callable[[ServerConfig, httpx2.Auth], Awaitable[int]]


async def login(cfg: ServerConfig, announce: Announce, connect: Connect, *, browser: bool = True,
                timeout_s: float = LOGIN_TIMEOUT_S) -> int:
    """Log in to `cfg`'s server: `connect(cfg, auth)` connects with the SDK's provider, which runs the flow when
    the server asks (the URL announced, the answer taken on loopback) and returns how many tools the server
    offers. McpAuthError says why a login did not complete."""
    why = unusable(cfg)
    if why is not None:
        raise McpAuthError(f"cannot log in to '{cfg.name}': {why}")
    storage = StoredLogin(cfg.url, keep_client=True, fresh=True)
    callback = _listener(storage)
    callback.thread.start()

    async def redirect(url: str) -> None:
        why = unsafe_page(url)
        if why is not None:
            raise McpAuthError(f"not opening the authorization page MCP server '{cfg.name}' named: {why}")
        callback.state = parse_qs(urlsplit(url).query).get("state", [""])[0]
        announce(f"To log in to MCP server '{cfg.name}', open this page in your browser:\n  {url}")
        if browser and _can_open_browser():
            import webbrowser

            # In a thread: a console browser or a slow launcher must not stop the listener's loop.
            opened = await asyncio.to_thread(webbrowser.open, url)
            if opened:
                announce("(opened in your browser)")

    async def answer() -> AuthorizationCodeResult:
        try:
            return await asyncio.wait_for(asyncio.shield(callback.result), timeout_s)
        except TimeoutError:
            raise McpAuthError(f"no answer from the browser within {timeout_s:g} s; run the login again") from None

    try:
        provider = OAuthClientProvider(cfg.url, client_metadata(callback.redirect_uri), storage, redirect, answer)
        storage.restore(provider)
        return await connect(cfg, provider)
    except Exception as err:  # the SDK's task groups wrap what went wrong: said once, in words
        raise _failure(err, cfg) from None
    finally:
        await asyncio.to_thread(callback.close)


def unsafe_page(url: str) -> str | None:
    """Why an authorization URL (the server's metadata chose its endpoint) must not be shown or opened: only an
    https page (plain http on loopback), written in printable ASCII, goes to the terminal and the browser; another
    scheme could start a program through the desktop's URL handlers (mcp-remote's CVE-2025-6514)."""
    if any(not 0x21 <= ord(c) <= 0x7E for c in url):
        return "it holds characters a URL does not"
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and (parts.hostname or "") in LOOPBACK:
        return None
    return f"only an https:// page is opened (it is a {parts.scheme or 'scheme-less'} URL)"


def _failure(err: BaseException, cfg: ServerConfig) -> McpAuthError:
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop(0)
        if e is None or any(e is s for s in seen):
            continue
        if isinstance(e, McpAuthError):
            return e
        seen.append(e)
        todo += [*(e.exceptions if isinstance(e, BaseExceptionGroup) else ()), e.__cause__, e.__context__]
    leaf = next((e for e in seen if not isinstance(e, BaseExceptionGroup)), err)
    from agentcli.redact import redact
    from agentcli.visible import one_line

    text = one_line(redact(str(leaf) or type(leaf).__name__, [*cfg.secrets(), *login_secrets(cfg)]))[:300]
    return McpAuthError(f"could not log in to MCP server '{cfg.name}': {text}")


def _can_open_browser() -> bool:
    """A graphical browser can be expected: a desktop session, macOS, or the user's BROWSER. Never a console
    browser inside the terminal agentcli is drawing on."""
    import sys

    return bool(os.environ.get("BROWSER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or sys.platform == "darwin")
