"""A real stdio MCP server (official SDK, 2026-07-28 protocol) whose tool list changes right after a client first
lists it: the change is published on `subscriptions/listen` streams only, so a client that subscribes after its
first listing misses it."""

from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp.types import Tool

bus = InMemorySubscriptionBus()


def later() -> str:
    """A tool added after the first listing."""
    return "later result"


class Late(MCPServer):
    grown = False

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        if not self.grown:
            self.grown = True
            self.add_tool(later)
            await bus.publish(ToolsListChanged())
        return tools


server = Late("late", subscriptions=bus)


@server.tool()
def first() -> str:
    """The tool listed from the start."""
    return "first result"


if __name__ == "__main__":
    server.run("stdio")
