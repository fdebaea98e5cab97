"""Shared helpers for provider tests."""

from __future__ import annotations

import asyncio
from typing import Any

from agentcli.core.events import StreamEvent
from agentcli.llm.messages import Message, ToolSpec
from agentcli.providers.base import ModelRequest, Provider

# The bound on one `agentcli` run through a platform SDK (Bedrock, Vertex AI, Azure OpenAI) in an end-to-end test.
# Importing the SDK is most of such a run: `import anthropic` alone is ~1.5 s of CPU (~1,500 pydantic models), 7x a
# whole direct-API run, so on a loaded machine the run takes ~25 s at load 20 where a direct one takes ~3 s, and
# the helper's default 60 s was seen to run out. Kept under pytest-timeout's 120 s, so that a run that really hangs
# still fails with its threads' stacks (tests/cli/helpers.py `Hung`), not with the test process's.
SDK_RUN_S = 100.0

READ = ToolSpec("Read", "Read a file", {"type": "object", "properties": {"file_path": {"type": "string"}},
                                        "required": ["file_path"]})


def request(*messages: Message, **kw: Any) -> ModelRequest:
    return ModelRequest(model=kw.pop("model", "test-model"), system=kw.pop("system", "be brief"),
                        messages=messages or (Message.user("hi"),), tools=kw.pop("tools", (READ,)), **kw)


def collect(provider: Provider, req: ModelRequest) -> list[StreamEvent]:
    async def run() -> list[StreamEvent]:
        try:
            return [ev async for ev in provider.stream(req)]
        finally:
            await provider.aclose()

    return asyncio.run(run())


def collect_until_error(provider: Provider, req: ModelRequest) -> tuple[list[StreamEvent], BaseException]:
    """The events yielded before the stream raised, and the exception (the test fails if none)."""
    got: list[StreamEvent] = []

    async def run() -> None:
        try:
            async for ev in provider.stream(req):
                got.append(ev)
        finally:
            await provider.aclose()

    try:
        asyncio.run(run())
    except Exception as e:
        return got, e
    raise AssertionError(f"no error raised; events: {got}")
