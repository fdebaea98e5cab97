"""A process that speaks no MCP: it never answers `initialize` (reads stdin until it closes)."""

import sys

for _line in sys.stdin:
    pass
