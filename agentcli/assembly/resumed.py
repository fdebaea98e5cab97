"""`agentcli -c` / `-r ID` with no provider flags: reconnect to the provider, model and base URL the session
used (stored in its header and in `resumed` / `model_switch` records; never a key)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from agentcli.errors import AgentCliError
from agentcli.settings.config import Settings

if TYPE_CHECKING:
    from agentcli.core.loop import Agent


def with_session_setup(settings: Settings) -> Settings:
    """`settings` with the resumed session's provider setup, when the user named none (flags, config, env).
    Unchanged for a new session, for `-r` without an id (the picker chooses later) and for unknown ids
    (opening the session reports those)."""
    if settings.model.name or settings.model.provider or settings.model.base_url:
        return settings
    if not (settings.session.continue_ or settings.session.resume):
        return settings
    from agentcli.session import layout
    from agentcli.session.index import list_sessions
    from agentcli.session.resumable import resolve_session  # (not the store: no writer before the prompt)

    directory = layout.sessions_dir(settings.project_root)
    try:
        sid = resolve_session(directory, settings.session.resume or None)
    except AgentCliError:
        return settings
    summary = next((s for s in list_sessions(directory) if s.id == sid), None)
    if summary is None or not summary.provider:
        return settings
    model = dataclasses.replace(settings.model, provider=summary.provider, name=summary.model or None,
                                base_url=summary.base_url)
    return dataclasses.replace(settings, model=model)


def public_url(url: str | None) -> str | None:
    """A base URL fit to store: without user:password and query (either may carry a credential)."""
    from agentcli.redact import public_url as strip

    return strip(url) if url else None


def carry_usage(agent: Agent, replay: list[dict[str, Any]]) -> None:
    """A resumed session's tokens and cost so far (partial replies included), for /cost and the status line."""
    from agentcli.llm.messages import Usage

    for rec in replay:
        meta = rec.get("meta") if rec.get("type") == "message" else None
        usage = meta.get("usage") if isinstance(meta, dict) else None
        if not isinstance(usage, dict):
            continue
        u = Usage(input_tokens=_int(usage.get("input_tokens")), output_tokens=_int(usage.get("output_tokens")),
                  cache_read_tokens=_int(usage.get("cache_read_input_tokens")),
                  cache_write_tokens=_int(usage.get("cache_creation_input_tokens")),
                  reasoning_tokens=_int(usage.get("reasoning_tokens")), estimated=bool(usage.get("estimated")))
        agent.total_usage = agent.total_usage + u
        model = str(meta.get("model") or agent.options.model) if isinstance(meta, dict) else agent.options.model
        agent.total_cost_usd += agent.options.cost_fn(model, u)
        agent.last_input_tokens = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
