"""A real stdio MCP server (official SDK) with many tools whose schemas are large: `many.py PREFIX COUNT`."""

import sys

from mcp.server.mcpserver import MCPServer

prefix, count = sys.argv[1], int(sys.argv[2])
server = MCPServer(f"many-{prefix}")
FILLER = " ".join(f"Detail {i}: this tool accepts a query and options and returns matching records." for i in range(16))


def make(n: int) -> None:
    def tool(query: str, limit: int = 10, region: str = "eu", verbose: bool = False) -> str:
        return f"{prefix} tool {n} answered {query}"

    server.add_tool(tool, name=f"{prefix}_tool_{n}", description=f"Looks up {prefix} record set {n}. {FILLER}")


for i in range(count):
    make(i)

if __name__ == "__main__":
    server.run("stdio")
