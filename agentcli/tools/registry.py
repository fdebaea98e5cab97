"""The tool registry: short names → "module:Class", imported on first use, so start-up pays only for what runs.

`ToolRegistry.tools()` is called by the loop at the start of every turn, so tools added mid-session (MCP,
`/preset`) appear on the next turn.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from agentcli.llm.messages import Message, TextBlock
from agentcli.record import record
from agentcli.tools.base import Tool, ToolSource
from agentcli.tools.names import (
    ALIASES,
    BUILTIN_TOOLS,
    DEFAULT_TOOLS,
    SUBAGENT_TOOLS,
    resolve_tools,
    unknown_tool_notices,
)

__all__ = ["ALIASES", "BUILTIN_TOOLS", "DEFAULT_TOOLS", "SUBAGENT_TOOLS", "ToolRegistry", "load_tool",
           "resolve_tools", "unknown_tool_notices"]


def load_tool(name: str) -> Tool:
    target = BUILTIN_TOOLS[name]
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    tool: Tool = cls()
    return tool


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
                self._loaded[name] = load_tool(name)
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
