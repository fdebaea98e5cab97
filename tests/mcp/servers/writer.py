"""A real stdio MCP server (official SDK) with a tool that writes a file: to see what a sandbox lets it do."""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("writer")


@server.tool()
def write(path: str) -> str:
    """Writes 'x' to `path`."""
    try:
        Path(path).write_text("x")
    except OSError as err:
        return f"failed: {err.strerror}"
    return "written"


if __name__ == "__main__":
    server.run("stdio")
