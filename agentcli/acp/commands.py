"""Slash commands over ACP: the ones advertised in `available_commands_update`, and what a `/name args` prompt runs.

Advertised: the built-ins that make sense without agentcli's own screen (`/compact`, `/init`), the custom commands
(`.claude/commands/`, `.agentcli/commands/` and the user's), the plugins' commands, the skills a user may invoke and
the MCP servers' prompts. The REPL's other built-ins are left out: ACP has its own way for modes, sessions and
models (`session/set_mode`, `session/load`, `session/new`), and the rest only show the REPL's screens. A command the
client sends that agentcli does not know goes to the model as the text it is, as in the REPL."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

if TYPE_CHECKING:
    from agentcli.core.loop import Agent

BUILTIN = {
    "compact": ("summarise the conversation to free context", "what to focus on (optional)"),
    "init": ("write an AGENTS.md for this repository", "what else it should cover (optional)"),
}


def available(agent: Agent, project_root: Path) -> list[AvailableCommand]:
    from agentcli.settings.custom_commands import load_commands

    found = [_command(name, *about) for name, about in BUILTIN.items()]
    custom = {n: c for n, c in load_commands(project_root).items() if n not in BUILTIN}
    found += [_command(n, f"{c.description} ({c.scope})".strip(), c.argument_hint) for n, c in custom.items()]
    listed = agent.registry.listed
    taken = {c.name for c in found}
    for name in listed.slash_commands:
        if name not in taken:
            taken.add(name)
            found.append(_command(name, "skill" if name in listed.skills else "plugin command", ""))
    servers = agent.mcp
    for name, _, prompt in servers.prompts() if servers is not None else ():
        if name not in taken:
            taken.add(name)
            found.append(_command(name, str(prompt.get("description") or "MCP prompt"), ""))
    return found


def _command(name: str, description: str, hint: str) -> AvailableCommand:
    given = AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None
    return AvailableCommand(name=name, description=description, input=given)


@dataclass(frozen=True, slots=True)
class Expanded:
    """What a prompt runs: a compaction (`compact`, with its focus) or a turn with `text`."""

    text: str
    compact: bool = False


def expand(text: str, project_root: Path) -> Expanded:
    """A prompt starting with a built-in command as what it runs; any other prompt as it is (a custom command's, a
    skill's, a plugin's or an MCP prompt's `/name` is expanded by the session's registry, as for `-p`: a custom
    command's `!`command``s run there, as Bash calls the session decides, agentcli.skills.commands)."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return Expanded(text)
    name, args = [*stripped[1:].split(None, 1), ""][:2]
    args = args.strip()
    if name == "compact":
        return Expanded(args, compact=True)
    if name == "init":
        from agentcli.core.prompt import INIT_PROMPT

        return Expanded(INIT_PROMPT + (f"\n\nAlso: {args}" if args else ""))
    return Expanded(text)
