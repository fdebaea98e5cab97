"""A process that speaks no MCP: it never answers `initialize` (reads stdin until it closes). With SILENT_STARTED set,
it first writes the time it started to that file (tests measure what it cost the run)."""

import os
import sys
import time

if os.environ.get("SILENT_STARTED"):
    with open(os.environ["SILENT_STARTED"], "w") as f:
        f.write(repr(time.time()))

for _line in sys.stdin:
    pass
