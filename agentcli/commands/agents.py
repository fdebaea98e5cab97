"""`agentcli agents list`: the subagent definitions this project sees (built-in, ~/.agentcli/agents, the
project's .claude/agents and .agentcli/agents)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from agentcli.commands import DirectoryOption, JsonFlag, entry, new_app, project_root, reporting_errors

app = new_app("List subagent definitions.")


@app.callback()
def _options(ctx: typer.Context, directory: DirectoryOption = None) -> None:
    ctx.obj = project_root(directory)


@app.command("list", help="every definition, with where it comes from")
def list_(ctx: typer.Context, as_json: JsonFlag = False) -> int:
    return reporting_errors(lambda: _list(ctx.obj, as_json))


main = entry(app, "agents")


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
