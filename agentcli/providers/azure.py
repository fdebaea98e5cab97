"""Azure OpenAI (`azure/DEPLOYMENT`): the OpenAI SDK's AsyncAzureOpenAI client handles the endpoint, API version
and credentials (an API key, or an Entra ID token); the Chat Completions stream is parsed by the OpenAI adapter's
own parser.

    AZURE_OPENAI_ENDPOINT=https://NAME.openai.azure.com  AZURE_OPENAI_API_KEY=…  OPENAI_API_VERSION=2024-10-21
    (or AZURE_OPENAI_AD_TOKEN=… for an Entra ID token)
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from agentcli.errors import AuthError, ConfigError
from agentcli.llm.stream import StreamEvent
from agentcli.net.errors import ApiIdentity
from agentcli.providers import openai_chat
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.providers.sdk import raw_stream

DEFAULT_API_VERSION = "2024-10-21"


class AzureOpenAIProvider:
    name = "azure"

    def __init__(self, cfg: ProviderConfig) -> None:
        self.cfg = cfg
        self.endpoint = cfg.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT")
        self.token = cfg.options.get("ad_token") or os.environ.get("AZURE_OPENAI_AD_TOKEN")
        self.who = ApiIdentity("Azure OpenAI", "AZURE_OPENAI_API_KEY", (cfg.api_key, self.token))
        self._chat = openai_chat.OpenAIChatProvider(ProviderConfig("openai", api_key="unused",
                                                                   base_url="http://unused", options=cfg.options))
        self._client: Any = None

    def _sdk(self) -> Any:
        if self._client is None:
            if not self.endpoint:
                raise ConfigError("Azure OpenAI needs its endpoint", hint="export AZURE_OPENAI_ENDPOINT=https://NAME"
                                  ".openai.azure.com (or set base_url under [providers.azure])")
            if not (self.cfg.api_key or self.token):
                raise AuthError("AZURE_OPENAI_API_KEY is not set",
                                hint="export it, or AZURE_OPENAI_AD_TOKEN for an Entra ID token")
            from openai import AsyncAzureOpenAI

            version = self.cfg.options.get("api_version") or os.environ.get("OPENAI_API_VERSION")
            self._client = AsyncAzureOpenAI(azure_endpoint=self.endpoint, api_key=self.cfg.api_key,
                                            azure_ad_token=self.token, api_version=version or DEFAULT_API_VERSION,
                                            max_retries=0, timeout=self.cfg.request_timeout_s)
        return self._client

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        client = self._sdk()
        body = self._chat.build_body(request)
        body["model"] = request.model  # the deployment name
        opened = lambda: client.chat.completions.with_streaming_response.create(**body)  # noqa: E731
        async for ev in openai_chat.parse_stream(raw_stream(opened, self.who), self.who):
            yield ev

    async def aclose(self) -> None:
        await self._chat.aclose()
        if self._client is not None:
            await self._client.close()
