"""The provider seam: one normalized request in, one stream of `StreamEvent`s out. The request and the
`Provider` protocol live in agentcli.llm (shared with the loop); here: how to reach a provider.

Adapters live one per wire format in this package and import their SDK (if any) lazily, inside methods.
Nothing here imports tools/, session/, ui/ or output/.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from agentcli.errors import AuthError
from agentcli.llm.messages import ToolSpec
from agentcli.llm.request import Effort as Effort
from agentcli.llm.request import ModelRequest as ModelRequest
from agentcli.llm.request import Provider as Provider
from agentcli.record import record

if TYPE_CHECKING:
    from agentcli.net.http import HttpClient


@record
class ProviderConfig:
    """How to reach a provider. `api_key` is a secret: never log or store it."""

    name: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    request_timeout_s: float = 600.0
    connect_timeout_s: float = 10.0
    max_retries: int = 4
    retry_base_delay_s: float = 0.5
    retry_max_delay_s: float = 30.0
    profile: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


class HttpProvider:
    """What the adapters speaking HTTP through one client share: closing it."""

    _client: HttpClient

    async def aclose(self) -> None:
        await self._client.aclose()


WEB_SEARCH_TOOL = "WebSearch"  # the client tool a provider's own server-side search replaces, where it has one


def split_web_search(tools: tuple[ToolSpec, ...]) -> tuple[tuple[ToolSpec, ...], bool]:
    """The tools without WebSearch, and whether it was there (then the adapter sends its native search tool)."""
    kept = tuple(t for t in tools if t.name != WEB_SEARCH_TOOL)
    return kept, len(kept) != len(tools)


def missing_key(env_var: str, also: str | None = None) -> AuthError:
    """The one error for a hosted provider whose key is missing, raised before any request (every adapter
    says it the same way, exit 2)."""
    from agentcli import paths

    either = f" (or {also})" if also else ""
    return AuthError(f"{env_var}{either} is not set", hint=f"export it or put it in {paths.user_config_file()}")
