"""A real stdio MCP server (official SDK) that adds a tool when asked and says so with
`notifications/tools/list_changed`."""

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("growing")


def fresh() -> str:
    """A tool that did not exist when the session started."""
    return "fresh result"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `fresh` to this server."""
    server.add_tool(fresh)
    await ctx.notify_tools_changed()
    return "grown"


if __name__ == "__main__":
    server.run("stdio")
