"""A stdio MCP server that fails at start-up, saying why on its stderr (as a misconfigured real one does)."""

import sys

sys.stderr.write("crashing: starting\n")
sys.stderr.write("crashing: DATABASE_URL is not set; cannot start\n")
sys.stderr.write("\x1b]0;pwned\x07\x1b[2Kcrashing: bye\n")  # a hostile one would try to act on the terminal
sys.exit(2)
