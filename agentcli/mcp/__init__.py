"""MCP client: configured Model Context Protocol servers feeding the tool registry.

Nothing here imports the `mcp` SDK at module level except `connection` and `spawn`, which are imported only when
at least one server is configured, so a run without MCP servers pays nothing for it.
"""
