"""`agentcli -c` / `-r ID` with no provider flags: reconnect to the provider, model and base URL the session
used (stored in its header and in `resumed` / `model_switch` records; never a key)."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlsplit, urlunsplit

from agentcli.errors import AgentCliError
from agentcli.settings.config import Settings


def with_session_setup(settings: Settings) -> Settings:
    """`settings` with the resumed session's provider setup, when the user named none (flags, config, env).
    Unchanged for a new session, for `-r` without an id (the picker chooses later) and for unknown ids
    (opening the session reports those)."""
    if settings.model or settings.provider or settings.base_url:
        return settings
    if not (settings.continue_ or settings.resume):
        return settings
    from agentcli.session import layout
    from agentcli.session.index import list_sessions
    from agentcli.session.store import resolve_session

    directory = layout.sessions_dir(settings.project_root)
    try:
        sid = resolve_session(directory, settings.resume or None)
    except AgentCliError:
        return settings
    summary = next((s for s in list_sessions(directory) if s.id == sid), None)
    if summary is None or not summary.provider:
        return settings
    return dataclasses.replace(settings, provider=summary.provider, model=summary.model or None,
                               base_url=summary.base_url)


def public_url(url: str | None) -> str | None:
    """A base URL fit to store: without user:password and query (either may carry a credential)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
