"""The redactor's cost over large text, an earlier agentcli/redact.py against this one, interleaved in one process.

    .venv/bin/python -m bench.bench_redact --before DIR [--runs 15]

DIR holds an earlier package (`git archive <rev> agentcli | tar -x -C DIR`). Texts: 1 MB of Python source (no
secret shape in it), 1 MB of `git log -p` (URLs, `?`/`&`, `sk-`-like words), and a 30 kB slice of it (a capped
tool output). Prints markdown rows of median CPU (ms) for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    old = _load(args.before / "agentcli" / "redact.py", "redact_before").Redactor(("secretsecret",))
    new = _load(ROOT / "agentcli" / "redact.py", "redact_after").Redactor(("secretsecret",))
    log = subprocess.run(["git", "log", "-p", "-n", "300"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout[:1_000_000]
    code = ((ROOT / "agentcli" / "assembly" / "runtime.py").read_text() * 60)[:1_000_000]
    print("| text | CPU before (ms) | CPU after (ms) |\n|---|---|---|")
    for label, text in (("1 MB of Python source", code), ("1 MB of `git log -p`", log),
                        ("30 kB of it (a capped tool output)", log[:30_000])):
        a, b = [], []
        for _ in range(args.runs):
            t = time.process_time()
            old.text(text)
            a.append(time.process_time() - t)
            t = time.process_time()
            new.text(text)
            b.append(time.process_time() - t)
        print(f"| {label} | {statistics.median(a) * 1000:.1f} | {statistics.median(b) * 1000:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
