"""`/skills` in the REPL: where skills are looked for, what each source holds, and trusting the project's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.ui.commands import command

if TYPE_CHECKING:
    from agentcli.ui.host import ReplHost as Repl


@command("skills", "Agent Skills: sources, names, trust the project's", "[trust]")
async def _skills(repl: Repl, args: str) -> None:
    from agentcli.skills import trust
    from agentcli.skills.discovery import project_sources
    from agentcli.skills.report import everything, skill_lines, source_lines

    if args.strip() == "trust":
        if trust.trust(repl.root, project_sources(repl.root)):
            repl.renderer.notice("This project's skills are trusted as they are now; /clear starts a session "
                                 "that offers them.")
        else:
            repl.renderer.notice("This project has no skills (.claude/skills, .agents/skills) to trust.")
        return
    if args.strip():
        repl.renderer.notice("Usage: /skills [trust]", style="yellow")
        return
    found = everything(repl.root)
    lines = ["Sources:", *(f"  {ln}" for ln in source_lines(found)), "Skills:",
             *(f"  {ln}" for ln in skill_lines(found) or ["(none)"])]
    lines += [f"  ! {n}" for n in found.notices]
    repl.renderer.notice("\n".join(lines))


def is_skill(repl: Repl, name: str) -> bool:
    """Does `/name` run a skill or a plugin's command? Asked of the session's agent once it is built; before
    that, of what a session here would find (the agent is built by sending the prompt)."""
    if repl.agent is not None:
        return name in repl.agent.registry.listed.slash_commands
    from agentcli.plugins.loaded import load_plugins
    from agentcli.skills.report import everything

    if name in load_plugins().commands():
        return True
    skill = everything(repl.root).skills.get(name)
    return skill is not None and skill.user_invocable


def skill_names(repl: Repl) -> list[tuple[str, str]]:
    """(name, description) of the skills `/name` runs, for completion and /help (the session's agent's)."""
    agent = repl.agent
    if agent is None:
        return []
    listed = agent.registry.listed
    return [(name, "skill") for name in listed.slash_commands if name in listed.skills]


PLUGIN_USAGE = ("/plugin [list | install NAME@MARKETPLACE | uninstall|enable|disable|trust NAME | update NAME [--yes] "
                "| marketplace add PATH|GIT-URL]")


@command("plugin", "plugins: list, install, update, trust, marketplace add", "[VERB …]")
async def _plugin(repl: Repl, args: str) -> None:
    import asyncio

    from agentcli.errors import AgentCliError

    words = args.split()
    try:
        lines = await asyncio.to_thread(plugin_action, words)  # a git clone or fetch must not freeze the screen
    except AgentCliError as err:
        repl.renderer.notice(err.one_line(), style="yellow")
        return
    repl.renderer.notice("\n".join(lines))


def plugin_action(words: list[str]) -> list[str]:
    """What `/plugin WORDS` does, as the lines it shows."""
    from agentcli.plugins import marketplace, ops, store

    verb, rest = (words[0], words[1:]) if words else ("list", [])
    if verb == "list":
        rows = ops.rows(store.load())
        return [f"{r['plugin']}  {r['version']}  {r['state']}, {r['trust']}\n  source {r['source']}  pinned "
                f"{r['pinned']}" for r in rows] or ["No plugins installed."]
    if verb == "marketplace" and rest[:1] == ["add"] and len(rest) == 2:
        state = store.load()
        market = marketplace.add(rest[1], state)
        store.save(state)
        return [f"Added marketplace {market.name} ({market.kind} {market.source})"]
    if verb in ("install", "uninstall", "enable", "disable", "trust") and len(rest) == 1:
        ref = rest[0]
        p = (ops.install(ref) if verb == "install" else ops.uninstall(ref) if verb == "uninstall"
             else ops.set_flag(ref, trusted=True) if verb == "trust" else ops.set_flag(ref, enabled=verb == "enable"))
        return [f"{verb.capitalize()}: {p.key} {p.version} (pinned {p.digest[:12]}); /clear starts a session with "
                "the change"]
    if verb == "update" and rest and rest[1:] in ([], ["--yes"]):
        found = ops.check_update(rest[0])
        if not found.lines:
            return [f"{found.plugin.key} is up to date"]
        shown = [f"{found.plugin.key}: {found.plugin.digest[:12]} → {found.digest[:12]}",
                 *(f"  {ln}" for ln in found.lines)]
        if rest[1:] != ["--yes"]:
            return [*shown, f"Not applied: /plugin update {found.plugin.key} --yes"]
        return [*shown, f"Updated {ops.apply_update(found).key}; trust it again for its hooks and MCP servers"]
    return [f"Usage: {PLUGIN_USAGE}"]
