"""WebFetch's conversion: a 2 MB HTML page to Markdown (CPU, median of `--runs`).

    .venv/bin/python bench/bench_web.py --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from agentcli.tools.webfetch import Page, to_markdown


def page(size: int = 2_000_000) -> str:
    block = ("<h2>Section {i}</h2><p>Some <a href='/x{i}'>link {i}</a> and <b>bold</b> text, <code>code</code>."
             "</p><ul><li>a</li><li>b</li></ul><table><tr><td>1</td><td>2</td></tr></table>")
    parts, n, i = ["<html><head><script>var a=1;</script></head><body>"], 0, 0
    while n < size:
        parts.append(block.format(i=i))
        n += len(parts[-1])
        i += 1
    return "".join(parts) + "</body></html>"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    runs = ap.parse_args().runs
    html = page()
    to_markdown(Page("u", 200, "text/html", html[:1000]))  # import once, outside the measurement
    cpu = []
    for _ in range(runs):
        c0 = time.process_time()
        out = to_markdown(Page("u", 200, "text/html", html))
        cpu.append(time.process_time() - c0)
    print(f"load {os.getloadavg()[0]:.2f}; {len(html) / 1e6:.1f} MB of HTML -> {len(out) / 1e6:.1f} MB of Markdown: "
          f"median {statistics.median(cpu) * 1000:.0f} ms CPU (min {min(cpu) * 1000:.0f})")


if __name__ == "__main__":
    main()
