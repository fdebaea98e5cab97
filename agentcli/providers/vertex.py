"""Google Vertex AI (`vertex/MODEL`): Claude through the Anthropic SDK's AsyncAnthropicVertex, Gemini through
google-genai's `Client(vertexai=True)`. The SDKs handle the endpoint and Google credentials (Application Default
Credentials, or an access token in GOOGLE_OAUTH_ACCESS_TOKEN); the streams are parsed by the direct adapters'
own parsers, so events, usage and errors match.

    ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT)   CLOUD_ML_REGION (or GOOGLE_CLOUD_LOCATION)
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from agentcli.errors import ConfigError, ProviderError
from agentcli.llm.stream import StreamEvent
from agentcli.net.errors import ApiIdentity, ConnectionDropped
from agentcli.providers import anthropic as anthropic_adapter
from agentcli.providers import gemini
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.providers.sdk import map_sdk_error, raw_stream, require


def _env(*names: str) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


class VertexProvider:
    name = "vertex"

    def __init__(self, cfg: ProviderConfig) -> None:
        self.cfg = cfg
        o = cfg.options
        self.project = o.get("project") or _env("ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT")
        self.region = o.get("region") or _env("CLOUD_ML_REGION", "GOOGLE_CLOUD_LOCATION") or "us-east5"
        self.token = o.get("access_token") or _env("GOOGLE_OAUTH_ACCESS_TOKEN")
        self.who = ApiIdentity("Vertex AI", "GOOGLE_APPLICATION_CREDENTIALS", (self.token,))
        self._claude: Any = None
        self._genai: Any = None

    def _check(self) -> None:
        if not self.project:
            raise ConfigError("Vertex AI needs a Google Cloud project",
                              hint="export ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT) and CLOUD_ML_REGION")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self._check()
        source = self._claude_stream(request) if "claude" in request.model else self._gemini_stream(request)
        async for ev in source:
            yield ev

    async def _claude_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if self._claude is None:
            from anthropic import AsyncAnthropicVertex

            if not self.token:
                require("google.auth", "Vertex AI")
            self._claude = AsyncAnthropicVertex(project_id=str(self.project), region=self.region,
                                                access_token=self.token, base_url=self.cfg.base_url,
                                                max_retries=0, timeout=self.cfg.request_timeout_s)
        body = anthropic_adapter.AnthropicProvider.build_body_for(request, self.cfg.options)
        client = self._claude
        opened = lambda: client.messages.with_streaming_response.create(**body)  # noqa: E731
        async for ev in anthropic_adapter.parse_stream(raw_stream(opened, self.who), self.who):
            yield ev

    async def _gemini_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        from google.genai import Client, types

        if self._genai is None:
            credentials = None
            if self.token:
                from google.oauth2.credentials import Credentials

                credentials = Credentials(token=self.token)  # type: ignore[no-untyped-call]
            http = types.HttpOptions(base_url=self.cfg.base_url) if self.cfg.base_url else None
            self._genai = Client(vertexai=True, project=self.project, location=self.region,
                                 credentials=credentials, http_options=http)
        body = gemini.build_body(request, self.cfg.options)
        config = {"systemInstruction": body.get("systemInstruction"), "tools": body.get("tools"),
                  **body.get("generationConfig", {})}
        state = gemini.GeminiStreamState(self.who)
        try:
            chunks = await self._genai.aio.models.generate_content_stream(
                model=request.model, contents=body["contents"],
                config=types.GenerateContentConfig.model_validate({k: v for k, v in config.items() if v}))
            async for chunk in chunks:
                for ev in state._handle(chunk.model_dump(mode="json", by_alias=True, exclude_none=True)):
                    yield ev
        except ProviderError:
            raise
        except Exception as err:
            raise map_sdk_error(err, self.who) from err
        if state.finish is None:
            raise ConnectionDropped(f"the {self.who.label} stream ended before a finishReason")
        yield state.stop()

    async def aclose(self) -> None:
        if self._claude is not None:
            await self._claude.close()
