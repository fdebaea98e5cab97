"""`agentcli presets list|show NAME`: the tool presets (built-in, yours in ~/.agentcli/presets, the project's
in .agentcli/presets) and what each one sets."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from agentcli.commands import DirectoryOption, JsonFlag, entry, new_app, project_root, reporting_errors
from agentcli.settings.presets import Preset, list_presets, load_preset

app = new_app("List and show tool presets.")


@app.callback()
def _options(ctx: typer.Context, directory: DirectoryOption = None) -> None:
    ctx.obj = project_root(directory)


@app.command("list", help="every preset, with where it comes from")
def list_(ctx: typer.Context, as_json: JsonFlag = False) -> int:
    return reporting_errors(lambda: _list(ctx.obj, as_json))


@app.command("show", help="one preset in full")
def show(ctx: typer.Context, name: Annotated[str, typer.Argument(metavar="PRESET", help="the preset's name")],
         as_json: JsonFlag = False) -> int:
    return reporting_errors(lambda: _show(load_preset(name, ctx.obj), as_json))


main = entry(app, "presets")


def _as_dict(p: Preset) -> dict[str, Any]:
    return {
        "name": p.name, "description": p.description, "source": p.source, "path": str(p.path) if p.path else None,
        "tools": list(p.tools), "permission_mode": p.permission_mode, "model": p.model,
        "system_prompt_append": p.system_prompt_append, "permissions": p.rules(),
    }


def _list(root: Path, as_json: bool) -> int:
    presets = list_presets(root)
    if as_json:
        sys.stdout.write(json.dumps([_as_dict(p) for p in presets], indent=2) + "\n")
        return 0
    width = max((len(p.name) for p in presets), default=8)
    for p in presets:
        sys.stdout.write(f"{p.name:<{width}}  {p.source:<8} {p.description}\n")
    return 0


def _show(p: Preset, as_json: bool) -> int:
    if as_json:
        sys.stdout.write(json.dumps(_as_dict(p), indent=2) + "\n")
        return 0
    lines = [f"{p.name} ({p.source}: {p.path})", f"  {p.description}" if p.description else "",
             f"tools: {', '.join(p.tools)}", f"permission mode: {p.permission_mode or '(unchanged)'}"]
    if p.model:
        lines.append(f"model: {p.model}")
    for behavior, rules in p.rules().items():
        if rules:
            lines.append(f"{behavior}: {', '.join(rules)}")
    if p.system_prompt_append:
        lines.append(f"system prompt addendum: {p.system_prompt_append}")
    sys.stdout.write("\n".join(x for x in lines if x) + "\n")
    return 0
