"""Switching a running session's model or preset: what the REPL's /model and /preset and the Agent SDK's
`set_model` share, so every front end switches the same way (the key checked before anything changes, the
context meter told whether the new server's template drops the tools) without reaching into the agent's parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentcli.assembly import selection

if TYPE_CHECKING:
    from agentcli.core.loop import Agent
    from agentcli.core.permissions import Policy
    from agentcli.providers.base import Provider
    from agentcli.settings.config import Settings
    from agentcli.settings.presets import Preset


@dataclass(slots=True)
class ModelSwitch:
    """A provider for another model, its credentials checked, not yet in use: `apply` it or `discard` it."""

    selection: selection.Selection
    provider: Provider

    async def apply(self, agent: Agent) -> None:
        """The agent answers with this model from its next turn on (recorded in the session)."""
        from agentcli.assembly.resumed import public_url
        from agentcli.assembly.toolsseen import known_dropped

        sel = self.selection
        await agent.switch_model(self.provider, sel.model, sel.config.name, recorded_provider=sel.pricing_provider,
                                 base_url=public_url(sel.config.base_url), tools_unseen=known_dropped(sel))

    async def discard(self) -> None:
        await self.provider.aclose()


async def prepare_model(settings: Settings, name: str | selection.Selection) -> ModelSwitch:
    """The switch to model `name`: a bare name stays with the session's provider setup, `provider/model` picks
    another; a selection is used as it is (the session's first model). Raises, with nothing switched, when that
    provider cannot be used (no key)."""
    from agentcli.assembly.models import make_provider

    if isinstance(name, selection.Selection):
        sel = name
    else:
        same = "/" not in name
        sel = selection.select(name, settings.model.provider if same else None,
                               settings.model.base_url if same else None, settings.model.providers,
                               request_timeout_s=settings.model.request_timeout_s,
                               max_retries=settings.model.max_retries, model_overrides=settings.model.overrides)
    provider = make_provider(sel)
    try:
        selection.check_credentials(provider)
    except BaseException:
        await provider.aclose()
        raise
    return ModelSwitch(sel, provider)


def preset_policy(settings: Settings, agent: Agent, preset: Preset, session_rules: list[str]) -> Policy:
    """The rules and mode of `preset` for this agent's session, judged against its working directories, with
    the approvals given "for this session" kept."""
    from agentcli.assembly.runtime import make_policy

    return make_policy(settings, agent.ctx, preset, session_rules)
