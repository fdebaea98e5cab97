"""Context economy: past a budget, MCP tool schemas are deferred behind one search tool.

Sending every schema on every request costs their tokens on every turn (60 tools ≈ 15–30 k tokens) and blurs the
model's choice. When the MCP tools' schemas would take more than `budget` (a share of the model's context
window, default 10 %), the model is offered instead `McpToolSearch`, whose description names every deferred tool
(a few tokens each). A search (keywords, or `select:NAME,NAME`) loads the matching tools: their full schemas are
offered from the next request on, for the rest of the session. A call to a deferred tool by name also works: it
loads the tool and runs it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agentcli.tools.base import Tool, ToolContext, ToolOutput

SEARCH_TOOL = "McpToolSearch"
MAX_LISTED = 300
_WORD = re.compile(r"[a-z0-9]+")
SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "keywords, or select:NAME[,NAME…] to load tools by name"},
        "max_results": {"type": "integer", "minimum": 1, "maximum": 20},
    },
    "required": ["query"],
}


def schema_tokens(tool: Tool) -> int:
    """Rough token cost of offering a tool (≈ 4 characters a token, as the request would carry it)."""
    text = json.dumps({"name": tool.name, "description": tool.description, "input_schema": tool.input_schema},
                      separators=(",", ":"))
    return len(text) // 4 + 1


class DeferredTools:
    """Which MCP tools are offered in full; the rest wait behind the search tool."""

    def __init__(self, budget: float, window: Callable[[], int | None], default_window: int) -> None:
        self.budget = budget
        self.window = window
        self.default_window = default_window
        self.loaded: set[str] = set()

    def limit(self) -> int:
        return int(self.budget * (self.window() or self.default_window))

    def offer(self, tools: list[Tool]) -> list[Tool]:
        if not tools or sum(schema_tokens(t) for t in tools) <= self.limit():
            return tools
        deferred = [t for t in tools if t.name not in self.loaded]
        return [t for t in tools if t.name in self.loaded] + [SearchTool(self, tools, deferred)]

    def load(self, names: list[str]) -> None:
        self.loaded.update(names)


class SearchTool:
    """Implements agentcli.tools.base.Tool: finds deferred MCP tools and loads their schemas."""

    name = SEARCH_TOOL
    read_only = True
    destructive = False
    edits_files = False

    def __init__(self, owner: DeferredTools, tools: list[Tool], deferred: list[Tool]) -> None:
        self.input_schema: dict[str, Any] = SEARCH_SCHEMA
        self.owner = owner
        self.tools = tools
        names = [t.name for t in deferred[:MAX_LISTED]]
        more = f"\n… and {len(deferred) - MAX_LISTED} more" if len(deferred) > MAX_LISTED else ""
        self.description = (
            "Loads MCP tools whose schemas are not sent yet (to save context). Search by keywords or "
            "`select:NAME,NAME`; the tools found can be called from your next step on. Not yet loaded:\n"
            + "\n".join(names) + more
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        query = str(args.get("query", "")).strip()
        limit = int(args.get("max_results") or 5)
        found = self.find(query, limit)
        if not found:
            return ToolOutput(f"No MCP tool matches {query!r}. The names are listed in this tool's description.")
        self.owner.load([t.name for t in found])
        lines = [f"- {t.name}: {t.description.splitlines()[0][:200] if t.description else ''}" for t in found]
        return ToolOutput("Loaded; call them directly from now on:\n" + "\n".join(lines))

    def find(self, query: str, limit: int) -> list[Tool]:
        if query.startswith("select:"):
            wanted = [n.strip() for n in query[7:].split(",") if n.strip()]
            return [t for t in self.tools if t.name in wanted]
        words = set(_WORD.findall(query.lower()))
        scored: list[tuple[int, str, Tool]] = []
        for tool in self.tools:
            name_words = set(_WORD.findall(tool.name.lower()))
            desc_words = set(_WORD.findall(tool.description.lower()))
            score = 3 * len(words & name_words) + len(words & desc_words)
            if score:
                scored.append((-score, tool.name, tool))
        return [t for _, _, t in sorted(scored, key=lambda s: (s[0], s[1]))[:limit]]
