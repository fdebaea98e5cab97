"""`--fallback-model`: when the main model is overloaded or unavailable (HTTP 529/503/5xx, connection refused)
after its own retries, the same request goes to the fallback model, which answers for the rest of the session.

As Claude Code does it: the switch is told (a notice), recorded in the session as a model switch, and what was
streamed before the failure is void (`ApiRetry(discarded=True)`), so nothing half-said reaches the transcript.
Other failures (a bad key, a bad request, a context overflow) are not the model's load and are not retried.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from agentcli.assembly import selection
from agentcli.errors import OverloadedError, UnavailableError, UsageError
from agentcli.llm.stream import ApiRetry, Notice, StreamEvent, UsageReport
from agentcli.providers.base import ModelRequest, Provider

if TYPE_CHECKING:
    from agentcli.core.loop import Agent
    from agentcli.settings.config import Settings

OnSwitch = Callable[[str, str], None]


class FallbackProvider:
    """Streams from `primary` until it fails with overload/unavailability, then from the fallback for good."""

    def __init__(self, primary: Provider, fallback: selection.Selection,
                 make: Callable[[selection.Selection], Provider]) -> None:
        self.primary = primary
        self.fallback = fallback
        self._make = make
        self._made: Provider | None = None
        self.switched = False
        self.on_switch: OnSwitch | None = None
        self.name = primary.name

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if self.switched:
            async for ev in self._fallback().stream(replace(request, model=self.fallback.model)):
                yield ev
            return
        produced = False
        try:
            async for ev in self.primary.stream(request):
                produced = produced or not isinstance(ev, UsageReport | ApiRetry | Notice)
                yield ev
            return
        except (OverloadedError, UnavailableError) as err:
            failure = err
        self.switched = True
        if self.on_switch is not None:
            self.on_switch(self.fallback.model, self.fallback.config.name)
        if produced:
            yield ApiRetry(1, 1, 0.0, failure.code, failure.one_line(), failure.status, discarded=True)
        yield Notice("warning", f"{request.model} failed ({failure.one_line()}); answering with the fallback "
                                f"model {self.fallback.model}")
        async for ev in self._fallback().stream(replace(request, model=self.fallback.model)):
            yield ev

    def _fallback(self) -> Provider:
        if self._made is None:
            self._made = self._make(self.fallback)
        return self._made

    async def aclose(self) -> None:
        await self.primary.aclose()
        if self._made is not None:
            await self._made.aclose()


def with_fallback(primary: Provider, settings: Settings, sel: selection.Selection) -> Provider:
    """Wrap the run's provider. The fallback is chosen now (a name no provider serves fails before the run),
    its client is made on first use."""
    from agentcli.assembly.models import make_provider

    name = str(settings.model.fallback_model)
    same_setup = "/" not in name
    fb = selection.select(name, settings.model.provider if same_setup else None,
                          settings.model.base_url if same_setup else None, settings.model.providers,
                          request_timeout_s=settings.model.request_timeout_s,
                          max_retries=settings.model.max_retries, model_overrides=settings.model.overrides)
    if fb.model == sel.model and fb.config.name == sel.config.name:
        if selection.overridden(name, settings.model.overrides) != name:
            return primary  # [model_overrides] sent both names to one model: there is nothing to fall back to
        raise UsageError(f"--fallback-model {name} is the main model", hint="name another model")
    return FallbackProvider(primary, fb, make_provider)


def bind(agent: Agent) -> None:
    """Once the agent exists: a switch updates its model (priced and shown as the fallback) and is recorded."""
    provider = agent.provider
    if not isinstance(provider, FallbackProvider):
        return

    def switched(model: str, provider_name: str) -> None:
        agent.options.model, agent.options.provider_name = model, provider_name
        agent.sink.record("model_switch", {"model": model, "provider": provider_name, "fallback": True})

    provider.on_switch = switched
