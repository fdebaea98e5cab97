"""`agentcli plugin …`: marketplaces and plugins in Claude Code's format (agentcli.plugins), and trusting a
project's own skills (agentcli.skills.trust)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from agentcli.commands import DirectoryOption, JsonFlag, entry, new_app, project_root, reporting_errors

app = new_app("Install, update and trust plugins from Claude Code marketplaces.")
markets = new_app("Add, list and remove plugin marketplaces.")
app.add_typer(markets, name="marketplace")
Ref = Annotated[str, typer.Argument(metavar="NAME@MARKETPLACE", show_default=False)]


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


@markets.command("add", help="add a marketplace from a folder or a git URL (https://, file://, ….git)")
def market_add(source: Annotated[str, typer.Argument(metavar="PATH|GIT-URL")]) -> int:
    def run() -> int:
        from agentcli.plugins import marketplace, store

        state = store.load()
        market = marketplace.add(source, state)
        store.save(state)
        pin = f" at {market.commit[:12]}" if market.commit else ""
        _out(f"Added marketplace {market.name} ({market.kind} {market.source}{pin})")
        return 0

    return reporting_errors(run)


@markets.command("list", help="the marketplaces added")
def market_list(as_json: JsonFlag = False) -> int:
    def run() -> int:
        from agentcli.plugins import store

        state = store.load()
        if as_json:
            _out(json.dumps([store.as_dict(m) for m in state.marketplaces.values()], indent=1))
            return 0
        for m in state.marketplaces.values():
            _out(f"{m.name}  {m.kind} {m.source}" + (f"  @{m.commit[:12]}" if m.commit else ""))
        if not state.marketplaces:
            _out("No marketplaces. Add one: agentcli plugin marketplace add PATH|GIT-URL")
        return 0

    return reporting_errors(run)


@markets.command("remove", help="forget a marketplace (its installed plugins stay until uninstalled)")
def market_remove(name: str) -> int:
    def run() -> int:
        from agentcli.errors import ConfigError
        from agentcli.plugins import store

        state = store.load()
        if state.marketplaces.pop(name, None) is None:
            raise ConfigError(f"no marketplace named {name!r}")
        store.save(state)
        _out(f"Removed marketplace {name}")
        return 0

    return reporting_errors(run)


@app.command("install", help="install a plugin, pinned to its content digest (its hooks and MCP servers wait for "
                             "`plugin trust`)")
def install(ref: Ref) -> int:
    def run() -> int:
        from agentcli.plugins import ops

        p = ops.install(ref)
        _out(f"Installed {p.key} {p.version} (pinned {p.digest[:12]}). Its hooks and MCP servers run once you "
             f"trust it: agentcli plugin trust {p.key}")
        return 0

    return reporting_errors(run)


@app.command("list", help="installed plugins: source, version, pin, enabled and trust states")
def list_(as_json: JsonFlag = False) -> int:
    def run() -> int:
        from agentcli.plugins import ops, store

        rows = ops.rows(store.load())
        if as_json:
            _out(json.dumps(rows, indent=1))
        elif not rows:
            _out("No plugins installed. Install one: agentcli plugin install NAME@MARKETPLACE")
        for r in [] if as_json else rows:
            _out(f"{r['plugin']}  {r['version']}  {r['state']}, {r['trust']}\n  source {r['source']}  "
                 f"pinned {r['pinned']}")
        return 0

    return reporting_errors(run)


def _flag(ref: str, verb: str, **flags: bool) -> int:
    def run() -> int:
        from agentcli.plugins import ops

        p = ops.set_flag(ref, **flags)
        _out(f"{verb} {p.key}")
        return 0

    return reporting_errors(run)


@app.command("enable", help="enable an installed plugin")
def enable(ref: Ref) -> int:
    return _flag(ref, "Enabled", enabled=True)


@app.command("disable", help="disable an installed plugin (kept installed)")
def disable(ref: Ref) -> int:
    return _flag(ref, "Disabled", enabled=False)


@app.command("trust", help="let an installed plugin's hooks and MCP servers run, as it is pinned now")
def trust(ref: Ref) -> int:
    return _flag(ref, "Trusted", trusted=True)


@app.command("uninstall", help="remove an installed plugin and its pinned copy")
def uninstall(ref: Ref) -> int:
    def run() -> int:
        from agentcli.plugins import ops

        _out(f"Uninstalled {ops.uninstall(ref).key}")
        return 0

    return reporting_errors(run)


@app.command("update", help="show what changed in a plugin's marketplace; apply it with --yes")
def update(ref: Ref, yes: Annotated[bool, typer.Option("--yes", help="apply the update shown")] = False) -> int:
    def run() -> int:
        from agentcli.plugins import ops

        found = ops.check_update(ref)
        if not found.lines:
            _out(f"{found.plugin.key} is up to date ({found.plugin.digest[:12]})")
            return 0
        _out(f"{found.plugin.key}: {found.plugin.digest[:12]} → {found.digest[:12]}")
        _out("\n".join(f"  {line}" for line in found.lines))
        if not yes:
            _out(f"Not applied. Apply it with: agentcli plugin update {found.plugin.key} --yes")
            return 0
        p = ops.apply_update(found)
        _out(f"Updated {p.key} to {p.version} (pinned {p.digest[:12]}); trust it again for its hooks and MCP "
             f"servers: agentcli plugin trust {p.key}")
        return 0

    return reporting_errors(run)


@app.command("trust-skills", help="trust this project's own skills (.claude/skills, .agents/skills) as they are now")
def trust_skills(directory: DirectoryOption = None) -> int:
    def run() -> int:
        from agentcli.skills import trust as skill_trust
        from agentcli.skills.discovery import project_sources

        root: Path = project_root(directory)
        if skill_trust.trust(root, project_sources(root)):
            _out("This project's skills are trusted as they are now; a changed skill asks again.")
        else:
            _out("This project has no skills to trust.")
        return 0

    return reporting_errors(run)


main = entry(app, "plugin")
