"""A real stdio MCP server (official SDK) whose `crash` tool ends its process: a server that dies mid-session."""

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("dying")


@server.tool()
def crash() -> str:
    """Ends the server process, saying so on its stderr."""
    sys.stderr.write("dying: crash requested, giving up\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


if __name__ == "__main__":
    server.run("stdio")
