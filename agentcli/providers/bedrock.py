"""Claude on Amazon Bedrock (`bedrock/MODEL_ID`): the Anthropic SDK's AsyncAnthropicBedrock client signs the
requests (AWS credentials from the usual chain: AWS_PROFILE, AWS_ACCESS_KEY_ID/…, SSO) and decodes Bedrock's
binary event stream; each event it yields is handled by the Anthropic adapter's own stream state, so events,
usage and errors match the direct API.

    AWS_REGION (or AWS_DEFAULT_REGION)   AWS_PROFILE or AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from agentcli.errors import AuthError, ConfigError, ProviderError
from agentcli.llm.stream import StreamEvent
from agentcli.net.errors import ApiIdentity, ConnectionDropped
from agentcli.providers import anthropic as anthropic_adapter
from agentcli.providers.base import ModelRequest, ProviderConfig
from agentcli.providers.sdk import map_sdk_error, require


class BedrockProvider:
    name = "bedrock"

    def __init__(self, cfg: ProviderConfig) -> None:
        self.cfg = cfg
        self.region = cfg.options.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        self.who = ApiIdentity("Amazon Bedrock", "AWS_ACCESS_KEY_ID", (os.environ.get("AWS_SECRET_ACCESS_KEY"),
                                                                       os.environ.get("AWS_SESSION_TOKEN")))
        self._client: Any = None

    def _sdk(self) -> Any:
        if self._client is None:
            if not self.region:
                raise ConfigError("Amazon Bedrock needs an AWS region", hint="export AWS_REGION=us-east-1")
            boto3 = require("boto3", "Amazon Bedrock")
            if boto3.Session().get_credentials() is None:
                raise AuthError("Amazon Bedrock: no AWS credentials found",
                                hint="set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or sign in "
                                     "with aws sso login")
            from anthropic import AsyncAnthropicBedrock

            self._client = AsyncAnthropicBedrock(aws_region=self.region, base_url=self.cfg.base_url,
                                                 max_retries=0, timeout=self.cfg.request_timeout_s)
        return self._client

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        client = self._sdk()
        body = anthropic_adapter.AnthropicProvider.build_body_for(request, self.cfg.options)
        state = anthropic_adapter.StreamState(self.who)
        try:
            events = await client.messages.create(**body)
            async for ev in events:
                out = state.handle_obj(ev.model_dump(mode="json", exclude_none=True))
                if out is not None:
                    yield out
        except ProviderError:
            raise
        except Exception as err:
            raise map_sdk_error(err, self.who) from err
        if not state.stopped:
            raise ConnectionDropped(f"the {self.who.label} stream ended before message_stop")

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
