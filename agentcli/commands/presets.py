"""`agentcli presets list|show NAME`: the tool presets (built-in, yours in ~/.agentcli/presets, the project's
in .agentcli/presets) and what each one sets."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.commands import reporting_errors
from agentcli.settings.presets import Preset, list_presets, load_preset


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    root = paths.find_project_root(Path(ns.directory) if ns.directory else Path.cwd())
    if ns.command == "list":
        return reporting_errors(lambda: _list(root, ns.json))
    return reporting_errors(lambda: _show(load_preset(ns.name, root), ns.json))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentcli presets", description="List and show tool presets.")
    p.add_argument("-C", "--directory", help="the project directory (default: the current one)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    a = sub.add_parser("list", help="every preset, with where it comes from")
    a.add_argument("--json", action="store_true")
    s = sub.add_parser("show", help="one preset in full")
    s.add_argument("name")
    s.add_argument("--json", action="store_true")
    return p


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
