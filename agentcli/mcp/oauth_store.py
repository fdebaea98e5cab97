"""Where an MCP server's OAuth login is kept, and whether OAuth may be used for a server at all; no `mcp` import
here, so `agentcli mcp logout` and the config checks do not load the SDK (agentcli.mcp.oauth does the rest).

One file per server URL: `$AGENTCLI_HOME/mcp-auth/<sha-256 of the URL>.json`, 0600 in a 0700 directory. It is
found by the URL alone and names the URL inside, so no configuration can move it, share it with another URL or
read another server's: a hostile `.mcp.json` naming a server "github" at its own URL gets what that URL was given.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agentcli import paths
from agentcli.mcp.config import ServerConfig

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def token_file(url: str) -> Path:
    return paths.home() / "mcp-auth" / (hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()[:40] + ".json")


def read(url: str) -> dict[str, Any]:
    """The stored login of `url` ({} when there is none, or the file is another URL's or unreadable)."""
    try:
        data = json.loads(token_file(url).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("url") == url else {}


def secrets(cfg: ServerConfig) -> list[str]:
    """What a login stored for this server that must never be shown (tokens, a client secret): for redaction."""
    if cfg.transport not in ("http", "sse"):
        return []
    data = read(cfg.url)
    tokens, client = data.get("tokens"), data.get("client")
    found = [tokens.get(k) for k in ("access_token", "refresh_token")] if isinstance(tokens, dict) else []
    found += [client.get("client_secret")] if isinstance(client, dict) else []
    return [v for v in found if isinstance(v, str) and len(v) >= 8]


def unusable(cfg: ServerConfig) -> str | None:
    """Why OAuth is not used for this server (None: it may be). A server given its own Authorization header keeps
    it; a token never travels in clear text to anything but this machine."""
    if cfg.transport not in ("http", "sse"):
        return "OAuth is only for http and sse servers"
    if any(k.lower() == "authorization" for k in cfg.headers):
        return "it is configured with its own Authorization header"
    parts = urlsplit(cfg.url)
    if parts.scheme != "https" and (parts.hostname or "") not in LOOPBACK:
        return "OAuth needs an https:// URL (plain http only on this machine's loopback)"
    return None


def logged_in(cfg: ServerConfig) -> bool:
    return unusable(cfg) is None and isinstance(read(cfg.url).get("tokens"), dict)


def forget(cfg: ServerConfig) -> bool:
    """Remove what a login stored for this server's URL; False when nothing was stored."""
    try:
        token_file(cfg.url).unlink()
    except FileNotFoundError:
        return False
    return True
