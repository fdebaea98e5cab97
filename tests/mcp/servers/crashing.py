"""A stdio MCP server that fails at start-up, saying why on its stderr (as a misconfigured real one does)."""

import sys

sys.stderr.write("crashing: starting\n")
sys.stderr.write("crashing: DATABASE_URL is not set; cannot start\n")
sys.exit(2)
