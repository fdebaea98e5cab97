"""MCP start-up cost (issue 13).

    .venv/bin/python bench/bench_mcp.py [--runs 9]

`agentcli` in a pseudo-terminal until the prompt is drawn and until a typed key is echoed, with no MCP server
configured and with three stdio servers (mcp-server-time twice, server-everything), interleaved A/B so load
drifts hit both alike. Also: how long until all three servers are connected (`/mcp` answering), and whether
`-p` without servers imports the `mcp` SDK.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_repl import fake_server, spawn  # noqa: E402

EVERYTHING = ROOT / ".cache/npm-mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TIME_SERVER = ROOT / ".venv/bin/mcp-server-time"


def project(base: Path, servers: bool) -> Path:
    """A project with the three servers in .agentcli/settings.local.toml, or the same file without them (so the
    difference measured is MCP's, not reading a TOML file's)."""
    root = base / ("with" if servers else ("without" if not (base / "without").exists() else "control"))
    (root / ".git").mkdir(parents=True)
    (root / ".agentcli").mkdir()
    (root / ".agentcli" / "settings.local.toml").write_text("max_turns = 40\n")
    if servers:
        (root / ".agentcli" / "settings.local.toml").write_text(
            "max_turns = 40\n"
            f"[mcp_servers.time1]\ncommand = {json.dumps(str(TIME_SERVER))}\n"
            f"[mcp_servers.time2]\ncommand = {json.dumps(str(TIME_SERVER))}\n"
            f"[mcp_servers.every]\ncommand = \"node\"\nargs = [{json.dumps(str(EVERYTHING))}, \"stdio\"]\n")
    return root


def one(url: str, home: str, cwd: Path, connected: bool) -> tuple[float, float, float | None]:
    import pexpect

    t0 = time.perf_counter()
    child = spawn(url, home, str(cwd))
    child.expect("›")
    drawn = time.perf_counter() - t0
    child.send("z")
    child.expect("z")
    echoed = time.perf_counter() - t0
    ready = None
    child.sendcontrol("c")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    return drawn, echoed, ready


def connect_ms(root: Path, home: str) -> float:
    """In a fresh process: McpManager.start() until all three servers are connected."""
    code = ("import asyncio, time; from pathlib import Path; from agentcli.mcp.config import load;"
            "from agentcli.mcp.manager import McpManager\n"
            "async def main():\n"
            f"    m = McpManager(load(Path({str(root)!r})), Path({str(root)!r}), grace_s=60)\n"
            "    t = time.perf_counter(); m.start(); await m.refresh(); d = time.perf_counter() - t\n"
            "    assert all(s == 'connected' for _, s in m.servers()), m.servers()\n"
            "    await m.aclose(); print(d * 1000)\n"
            "asyncio.run(main())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         env={**os.environ, "AGENTCLI_HOME": home}, check=True)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    names = ("none", "none (control)", "3 stdio servers")
    drawn: dict[str, list[float]] = {n: [] for n in names}
    keyed: dict[str, list[float]] = {n: [] for n in names}
    with fake_server([{"text": "hi"}]) as url, tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        roots = {"none": project(base, False), "none (control)": project(base, False),
                 "3 stdio servers": project(base, True)}
        for i in range(args.runs + 1):
            order = names[i % 3:] + names[:i % 3]  # rotate, so no variant always follows the same one
            for name in order:
                d, k, _ = one(url, tmp, roots[name], False)
                if i:  # the first round warms up (byte-compiling, first imports)
                    drawn[name].append(d)
                    keyed[name].append(k)
        connected = connect_ms(roots["3 stdio servers"], tmp)
        sync_us = start_cost_us(roots["3 stdio servers"], tmp)
        imports = imports_mcp(roots["none"], tmp)
    print(f"runs {args.runs}, load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    for name in names:
        print(f"{name:16} prompt drawn {1000 * statistics.median(drawn[name]):.0f} ms, "
              f"first key echoed {1000 * statistics.median(keyed[name]):.0f} ms")
    for name in names[1:]:
        diffs = [1000 * (b - a) for a, b in zip(drawn["none"], drawn[name], strict=True)]
        print(f"paired difference, {name} - none, prompt drawn: median {statistics.median(diffs):+.0f} ms")
    print(f"synchronous cost of configuring 3 servers in the event loop (config read, manager, start): "
          f"{sync_us:.0f} µs median")
    print(f"all 3 connected, McpManager.start() to settled: {connected:.0f} ms (SDK import included)")
    print(f"-p build without servers imports mcp: {imports}")


def start_cost_us(root: Path, home: str) -> float:
    """What MCP costs the REPL's event loop before anything runs in the background: reading the config,
    making the manager, scheduling its start (median of 200, in a fresh process)."""
    code = ("import asyncio, time, statistics; from pathlib import Path; from agentcli.mcp.config import load;"
            "from agentcli.mcp.manager import McpManager\n"
            "async def main():\n"
            "    out = []\n"
            "    for _ in range(200):\n"
            f"        t = time.perf_counter(); m = McpManager(load(Path({str(root)!r})), Path('.'))\n"
            "        m.start(60); out.append(time.perf_counter() - t); await m.aclose()\n"
            "    print(statistics.median(out) * 1e6)\n"
            "asyncio.run(main())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         env={**os.environ, "AGENTCLI_HOME": home}, check=True)
    return float(out.stdout.strip())


def imports_mcp(without: Path, tmp: str) -> str:
    code = ("import sys, asyncio; from pathlib import Path; from agentcli.settings.config import load_settings;"
            "from agentcli.assembly import runtime; from agentcli.core.permissions import DenyingApprover;"
            f"s = load_settings(Path({str(without)!r}), {{'model': 'openai/x', 'no_session_persistence': True}});"
            "asyncio.run(runtime.build(s, DenyingApprover()));"
            "print(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=without,
                         env={**os.environ, "OPENAI_API_KEY": "sk-x-000000000", "AGENTCLI_HOME": tmp})
    return out.stdout.strip() or out.stderr.strip()[-200:]


if __name__ == "__main__":
    main()
