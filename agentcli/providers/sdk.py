"""What the cloud-platform adapters share: they let the official SDK's platform client do authentication and
endpoints (Azure, Vertex AI, Bedrock), read its raw response stream, and parse it with the same parser as the
direct API — so the events, usage and errors are the same as every other provider's.

The SDKs are imported only when one of these providers is selected; a missing extra is one clear line."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from agentcli.errors import ConfigError, ProviderError
from agentcli.net.errors import ApiIdentity, error_from_status

EXTRAS = {"boto3": "bedrock", "botocore": "bedrock", "google.auth": "vertex"}


def require(module: str, platform: str) -> Any:
    """Import `module`, or fail with the `pip install 'agentcli[extra]'` that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        extra = EXTRAS.get((err.name or module).split(".")[0], EXTRAS.get(err.name or "", "")) or platform
        raise ConfigError(f"{platform} needs the Python package {err.name or module}",
                          hint=f"pip install 'agentcli[{extra}]'") from err


async def raw_stream(open_response: Callable[[], Any], who: ApiIdentity) -> AsyncIterator[bytes]:
    """The bytes of a streamed SDK response (`client.….with_streaming_response.create(...)`), SDK errors mapped
    to agentcli's error tree at this boundary."""
    try:
        async with open_response() as response:
            async for chunk in response.iter_bytes():
                yield chunk
    except ProviderError:
        raise
    except Exception as err:
        raise map_sdk_error(err, who) from err


def map_sdk_error(err: Exception, who: ApiIdentity) -> ProviderError:
    if "Credentials" in type(err).__name__:  # botocore NoCredentialsError, google.auth DefaultCredentialsError
        from agentcli.errors import AuthError

        return AuthError(f"{who.label}: no credentials found ({type(err).__name__})",
                         hint="set up the platform's credentials (AWS_PROFILE or keys; gcloud auth "
                              "application-default login)")
    status = getattr(err, "status_code", None) or getattr(err, "code", None)
    message = str(getattr(err, "message", None) or err)
    if isinstance(status, int):
        headers = getattr(getattr(err, "response", None), "headers", None)
        return error_from_status(status, message, who, headers=headers)
    from agentcli.errors import UnavailableError

    return UnavailableError(f"{who.label}: {type(err).__name__}: {message}", hint="check the endpoint and network")
