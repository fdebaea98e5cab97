"""An in-process provider that replays scripted responses: for loop tests that need no HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.events import (
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
)
from agentcli.errors import ProviderError
from agentcli.llm.messages import Usage
from agentcli.providers.base import ModelRequest
from agentcli.tools.base import ToolContext, ToolOutput


@dataclass
class Say:
    text: str = ""
    calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    usage: Usage = field(default_factory=lambda: Usage(10, 5))
    fail_after: ProviderError | None = None


class ScriptedProvider:
    name = "scripted"

    def __init__(self, script: list[Say]) -> None:
        self.script = list(script)
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        say = self.script.pop(0)
        for i in range(0, len(say.text), 3):
            yield TextDelta(say.text[i : i + 3])
        if say.fail_after is not None:
            raise say.fail_after
        for n, (name, args) in enumerate(say.calls):
            yield ToolCallStart(n, f"call_{len(self.requests)}_{n}", name)
            raw = args if isinstance(args, str) else json.dumps(args)
            for i in range(0, len(raw), 4):
                yield ToolCallDelta(n, raw[i : i + 4])
            yield ToolCallEnd(n)
        yield UsageReport(say.usage)
        yield MessageStop("tool_use" if say.calls else "end_turn", "scripted-1")

    async def aclose(self) -> None:
        return None


class EchoTool:
    name = "Echo"
    description = "Echo the text back."
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    read_only = True
    destructive = False
    edits_files = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(f"echo: {args['text']}")


class TouchTool(EchoTool):
    name = "Touch"
    description = "Write a marker file."
    read_only = False
    edits_files = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        (ctx.project_root / args["text"]).write_text("x")
        return ToolOutput("touched")
