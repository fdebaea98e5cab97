"""The tool registry: short names → "module:Class", imported on first use, so start-up pays only for what runs.

`ToolRegistry.tools()` is called by the loop at the start of every turn, so tools added mid-session (MCP,
`/preset`) appear on the next turn. The built-in tools it hands out are `BuiltinTool`s: their spec
(agentcli.tools.specs) is all the model's request, the policy and the front ends read, and the implementation is
imported at the tool's first run, so a run that calls no tool imports none of the tools' code (issue 25).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from agentcli.llm.messages import Message, TextBlock
from agentcli.record import record
from agentcli.tools.base import Tool, ToolContext, ToolOutput, ToolSource
from agentcli.tools.names import (
    ALIASES,
    BUILTIN_TOOLS,
    DEFAULT_TOOLS,
    SUBAGENT_TOOLS,
    resolve_tools,
    unknown_tool_notices,
)
from agentcli.tools.specs import SPECS, ToolSpec, describe

__all__ = ["ALIASES", "BUILTIN_TOOLS", "DEFAULT_TOOLS", "SUBAGENT_TOOLS", "BuiltinTool", "ToolRegistry",
           "load_tool", "resolve_tools", "task_tool_for", "unknown_tool_notices"]


def _implementation(name: str) -> Any:
    module_name, _, attr = BUILTIN_TOOLS[name].partition(":")
    return getattr(importlib.import_module(module_name), attr)


def load_tool(name: str) -> Tool:
    """The built-in tool `name`'s implementation, imported now (a warm-up, `permissions check`)."""
    tool: Tool = _implementation(name)()
    return tool


class BuiltinTool:
    """A built-in tool as its spec describes it, whose implementation is imported and made at its first run (or
    the first read of an attribute only the implementation has), then used for every call after."""

    def __init__(self, spec: ToolSpec, description: str | None = None) -> None:
        self.name = spec.name
        self.description = spec.description if description is None else description
        self.input_schema = spec.input_schema
        self.read_only = spec.read_only
        self.destructive = spec.destructive
        self.edits_files = spec.edits_files
        self.timeout_s = spec.timeout_s
        self._own_description = description is not None  # Task's, listing the session's subagents
        self._made: Tool | None = None

    def implementation(self) -> Tool:
        if self._made is None:
            cls = _implementation(self.name)
            self._made = cls(self.description) if self._own_description else cls()
        return self._made

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.implementation().run(args, ctx)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy and pickle probe for these on a half-made object
            raise AttributeError(name)
        return getattr(self.implementation(), name)

    def __repr__(self) -> str:
        return f"<BuiltinTool {self.name}>"


def task_tool_for(agents: Iterable[tuple[str, str]]) -> BuiltinTool:
    """The Task tool, its description listing the subagents it can start ((name, description) pairs)."""
    return BuiltinTool(SPECS["Task"], describe(agents))


@record
class Listed:
    """What the session offers beyond tools, for `system/init`: skill names, (plugin, path) pairs, and the
    slash commands a prompt may start with (custom commands and user-invocable skills)."""

    skills: tuple[str, ...] = ()
    plugins: tuple[tuple[str, str], ...] = ()
    slash_commands: tuple[str, ...] = ()


class ToolRegistry:
    """The tools a session may use, in a stable order. `enabled` can change between turns."""

    def __init__(self, enabled: Iterable[str] = DEFAULT_TOOLS, extra: Iterable[Tool] = (),
                 sources: Iterable[ToolSource] = ()) -> None:
        self.enabled: list[str] = list(enabled)
        self._loaded: dict[str, Tool] = {}
        self._extra: dict[str, Tool] = {t.name: t for t in extra}
        self.sources: list[ToolSource] = list(sources)
        self.listed = Listed()

    def add(self, tool: Tool) -> None:
        self._extra[tool.name] = tool

    def tools(self) -> list[Tool]:
        out: list[Tool] = []
        for name in self.enabled:
            if name in self._extra:
                continue
            if name not in self._loaded:
                self._loaded[name] = BuiltinTool(SPECS[name])
            out.append(self._loaded[name])
        out.extend(self._extra.values())
        taken = {t.name for t in out}
        for source in self.sources:
            out.extend(t for t in source.tools() if t.name not in taken)
        return out

    async def refresh(self) -> None:
        """Before each request: let the sources (MCP servers) bring their current tools."""
        for source in self.sources:
            await source.refresh()

    def lookup(self, name: str) -> Tool | str | None:
        """A source's tool not offered this turn, or the reason it cannot run (see ToolSource.lookup)."""
        for source in self.sources:
            found = source.lookup(name)
            if found is not None:
                return found
        return None

    async def attach(self, message: Message, *, expand: bool = True) -> Message:
        """`message` with a source's command in it expanded (an MCP prompt, a custom command; not without
        `expand`), and with what its mentions attach (MCP resources) placed before its own text."""
        if expand and message.text.startswith("/"):
            for source in self.sources:
                expanded = await source.expand(message.text)
                if expanded is not None:
                    others = tuple(b for b in message.content if not isinstance(b, TextBlock))
                    message = Message(message.role, (*others, TextBlock(expanded)))
                    break
        extra = [b for source in self.sources for b in await source.attachments(message.text)]
        return Message(message.role, (*extra, *message.content)) if extra else message

    def notices(self) -> list[tuple[str, str]]:
        return [n for source in self.sources for n in source.notices()]

    def servers(self) -> list[tuple[str, str]]:
        return [s for source in self.sources for s in source.servers()]

    async def aclose(self) -> None:
        for source in self.sources:
            await source.aclose()
