"""`agentcli --version` is answered before anything but the package's `__init__` is imported: not even typing
(~3–5 ms, bench/RESULTS.md perf3)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import runpy, sys
before = sorted(sys.modules)
sys.argv = ["agentcli", "--version"]
runpy.run_module("agentcli", run_name="__main__")
print(sorted(set(sys.modules) - set(before)))
"""


def test_version_imports_only_the_package_itself() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    version, added = done.stdout.splitlines()
    assert version.endswith("(agentcli)")
    assert added == str(["__future__", "agentcli", "agentcli.version"])
