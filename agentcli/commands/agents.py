"""`agentcli agents list`: the subagent definitions this project sees (built-in, ~/.agentcli/agents, the
project's .claude/agents and .agentcli/agents)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agentcli import paths
from agentcli.commands import reporting_errors


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="agentcli agents", description="List subagent definitions.")
    p.add_argument("-C", "--directory", help="the project directory (default: the current one)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    a = sub.add_parser("list", help="every definition, with where it comes from")
    a.add_argument("--json", action="store_true")
    ns = p.parse_args(argv)
    root = paths.find_project_root(Path(ns.directory) if ns.directory else Path.cwd())
    return reporting_errors(lambda: _list(root, ns.json))


def _list(root: Path, as_json: bool) -> int:
    from agentcli.agents.definitions import load_definitions

    found, warnings = load_definitions(root)
    rows = [{"name": d.name, "description": d.description, "tools": list(d.tools) if d.tools else None,
             "model": d.model, "source": d.source, "path": d.path} for d in found.values()]
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        width = max(len(r["name"] or "") for r in rows)
        for r in rows:
            tools = ", ".join(r["tools"]) if r["tools"] else "all of the parent's tools"
            model = f"; model {r['model']}" if r["model"] else ""
            sys.stdout.write(f"{r['name']:<{width}}  {r['source']:<8} {r['description']}\n"
                             f"{'':<{width}}  tools: {tools}{model}\n")
    for w in warnings:
        sys.stderr.write(f"agentcli: {w}\n")
    return 0
