"""A real OAuth-protected MCP server on loopback (the `mcp` SDK's server-side auth: `MCPServer(auth=…)` with an
authorization server provider), run by uvicorn on a thread of the test process so a test can see and change its
state (expire a token, count refreshes).

The authorization server approves every request at once (no login page): `/authorize` redirects straight back to
the client's `redirect_uri` with a code and the client's `state`, which is what a user clicking "Allow" produces.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


@dataclass
class Provider:
    """An in-memory authorization server that says yes to everyone."""

    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    lifetime_s: int = 3600
    refreshes: int = 0
    authorizations: int = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.authorizations += 1
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["mcp"], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(code.code, None)
        return self._issue(code.client_id, code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, token: str) -> RefreshToken | None:
        return self.refresh.get(token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refreshes += 1
        self.refresh.pop(token.token, None)
        return self._issue(token.client_id, scopes or token.scopes, token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + self.lifetime_s, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=self.lifetime_s,
                          refresh_token=refresh, scope=" ".join(scopes))

    def expire_access(self) -> None:
        """Every access token is void now: the client must refresh (or log in again)."""
        self.access.clear()


class OAuthMcpServer:
    """`with OAuthMcpServer() as srv:` serves `srv.url` (streamable HTTP at /mcp, or legacy SSE at /sse) until the
    block ends."""

    def __init__(self, transport: str = "http", *, protected: bool = True) -> None:
        # Bound and listening before uvicorn starts: a client's first connection waits in the backlog, so nothing
        # has to wait for the server to come up.
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        base = f"http://127.0.0.1:{self.port}"
        self.url = f"{base}/mcp" if transport == "http" else f"{base}/sse"
        self.provider = Provider()
        self.calls: list[str] = []
        auth = AuthSettings(issuer_url=base, resource_server_url=self.url, validate_token_resource=False,  # type: ignore[arg-type]
                            required_scopes=["mcp"],
                            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["mcp"],
                                                                                  default_scopes=["mcp"]))
        server: MCPServer = MCPServer("guarded", auth_server_provider=self.provider, auth=auth) if protected else \
            MCPServer("open")

        @server.tool()
        def whoami(greeting: str) -> str:
            """Answers with the greeting and a word only this server knows."""
            self.calls.append(greeting)
            return f"{greeting}: the secret word is pineapple"

        self.app = server.streamable_http_app() if transport == "http" else server.sse_app()
        self.seen_auth: list[str] = []  # the Authorization header of every request (empty when none)
        config = uvicorn.Config(self._recording, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on",
                                interface="asgi3")
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._serve, daemon=True)

    async def _recording(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen_auth.append(dict(scope["headers"]).get(b"authorization", b"").decode())
        await self.app(scope, receive, send)

    def _serve(self) -> None:
        asyncio.run(self.uvicorn.serve(sockets=[self.sock]))

    def __enter__(self) -> OAuthMcpServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(10)
        self.sock.close()
