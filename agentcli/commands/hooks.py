"""`agentcli hooks list|import|trust`: the hooks in force, copying hooks from Claude Code's settings.json, and
trusting the project files hooks run (agentcli.hooks.scripts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentcli import paths
from agentcli.commands import DirectoryOption, JsonFlag, entry, new_app, reporting_errors
from agentcli.errors import ConfigError

app = new_app("List hooks; import them from Claude Code.")


@app.callback()
def _options(ctx: typer.Context, directory: DirectoryOption = None) -> None:
    ctx.obj = Path(directory).resolve() if directory else Path.cwd()


@app.command("list", help="every hook in force, with where it is configured")
def list_(ctx: typer.Context, as_json: JsonFlag = False) -> int:
    return reporting_errors(lambda: _list(ctx.obj, as_json))


@app.command("import", help="copy the hooks of a Claude Code settings.json into agentcli's settings")
def import_(ctx: typer.Context,
            source: Annotated[str | None, typer.Option(
                "--from", metavar="FILE", show_default=False,
                help="the settings.json to read (default: the project's .claude/settings.json)")] = None,
            scope: Annotated[Literal["local", "project", "user"], typer.Option(
                help="where to write them: local (.agentcli/settings.local.toml, default), project "
                     "(.agentcli/settings.toml, shared; runs once trusted) or user (config.toml)")] = "local",
            ) -> int:
    return reporting_errors(lambda: _import(ctx.obj, source, scope))


@app.command("trust", help="trust the project files the hooks in force run (scripts), as they are now")
def trust_(ctx: typer.Context) -> int:
    return reporting_errors(lambda: _trust(ctx.obj))


main = entry(app, "hooks")


def _trust(cwd: Path) -> int:
    from agentcli.hooks.setup import pin_scripts
    from agentcli.settings.config import load_settings

    files = pin_scripts(load_settings(cwd, {}))
    if not files:
        sys.stdout.write("No hook runs a file of this project: nothing to trust.\n")
        return 0
    sys.stdout.write("Trusted, as they are now: " + ", ".join(files) + "\nA changed file asks again.\n")
    return 0


def _list(cwd: Path, as_json: bool) -> int:
    from agentcli.hooks.setup import load_specs
    from agentcli.settings.config import load_settings

    settings = load_settings(cwd, {})
    specs, warnings = load_specs(settings)
    rows = [{"event": s.event, "matcher": s.matcher, "command": s.command, "timeout": s.timeout_s,
             "source": s.source} for s in specs]
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    if not rows:
        sys.stdout.write("No hooks configured.\n")
    for r in rows:
        matcher = f" [{r['matcher']}]" if r["matcher"] else ""
        sys.stdout.write(f"{r['event']}{matcher}: {r['command']}  ({r['source']}, {r['timeout']:g} s)\n")
    for w in warnings:
        sys.stderr.write(f"agentcli: {w}\n")
    if settings.untrusted and any("hook" in g for g in settings.untrusted):
        sys.stderr.write("agentcli: this project's .agentcli/settings.toml has hooks that will not run until you "
                         "trust it: agentcli permissions trust\n")
    return 0


def _import(cwd: Path, source: str | None, scope: str) -> int:
    from agentcli.hooks.config import parse_hooks
    from agentcli.permissions.loader import scope_file

    root = paths.find_project_root(cwd)
    src = Path(source).expanduser() if source else root / ".claude" / "settings.json"
    try:
        data = json.loads(src.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"cannot read {src}: {err.strerror or err}",
                          hint="pass the Claude Code settings file with --from") from err
    except ValueError as err:
        raise ConfigError(f"{src} is not valid JSON: {err}") from err
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not hooks:
        raise ConfigError(f"{src} has no hooks to import")
    specs, warnings = parse_hooks(hooks, str(src))
    dest = scope_file(root, scope)
    added = _merge_into(dest, hooks)
    for w in warnings:
        sys.stderr.write(f"agentcli: {w}\n")
    sys.stdout.write(f"Imported {len(specs)} hook command(s) from {src} into {dest} ({added} new group(s)).\n")
    if scope != "project":  # what the user imports for themselves, they vouch for; a shared file waits for trust
        _trust(cwd)
    if scope == "project":
        sys.stdout.write("Project hooks run once you trust the file: agentcli permissions trust\n")
    return 0


def _merge_into(dest: Path, hooks: dict[str, Any]) -> int:
    """Add each event's groups that `dest` does not have yet, keeping the rest of the file as written (the user
    asked for these hooks: a file they trusted stays trusted)."""
    from agentcli.settings import writer

    table = writer.load(dest).get("hooks", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{dest}: 'hooks' is not a table", hint="fix or remove it, then import again")
    merged: dict[str, list[Any]] = {}
    added = 0
    for event, groups in hooks.items():
        have = table.get(event, [])
        if not isinstance(have, list):
            raise ConfigError(f"{dest}: 'hooks.{event}' is not a list of groups",
                              hint="fix or remove it, then import again")
        new = [g for g in groups if g not in have] if isinstance(groups, list) else []
        if new:
            merged[event] = [*have, *new]
            added += len(new)
    if merged:
        writer.update_table(dest, "hooks", merged)
    return added
