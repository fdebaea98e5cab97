"""Custom slash commands (agentcli.settings.custom_commands) as a source of the registry: `/name args` becomes the
command's prompt in the REPL, `-p` and the Agent SDK alike, its `!`command``s run first, as Claude Code runs them.

Each `!`command`` is a Bash call made through the session's own path for the model's calls (hooks, the policy and
its question, the kernel sandbox, the Bash tool's output limit and redaction): `ToolContext.run_call`. What the
front matter's `allowed-tools` grants is checked the way a skill's is (it spares a question the defaults would ask;
deny and ask rules still win), and only for the user's own commands: a project's command file comes from the
repository (a plugin's from its author), so its `!`command``s get exactly what the model's Bash call would get, no
more (in the REPL they ask; in `-p` they are refused unless the user's permissions allow them). Whatever was not
run, or failed, is said in the prompt (the model reads why) and in one notice (the user sees it), never left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from agentcli.settings.custom_commands import CustomCommand, load_commands
from agentcli.skills.discovery import parse_allowed_tools
from agentcli.tools.base import PromptSource, ToolContext, ToolOutput

MAX_COMMANDS = 20  # `!`command``s run for one prompt; a file with more is refused whole
_EXIT = re.compile(r"^Exit code (-?\d+)$", re.M)


async def with_shell_output(command: CustomCommand, arguments: str, ctx: ToolContext,
                            notices: list[tuple[str, str]]) -> str:
    """`command`'s prompt for `arguments`, each `!`command`` replaced by what running it gave (or why it did not
    run); what the user must hear goes to `notices`."""
    wanted = command.shell_commands()
    if not wanted:
        return command.expand(arguments)
    if len(wanted) > MAX_COMMANDS:
        notices.append(("warning", f"/{command.name}: {len(wanted)} `!` commands (at most {MAX_COMMANDS}); none "
                                   "was run"))
        return command.expand(arguments, [f"[not run: more than {MAX_COMMANDS} commands]"] * len(wanted))
    return command.expand(arguments, [await _run(command, line, ctx, notices) for line in wanted])


async def _run(command: CustomCommand, line: str, ctx: ToolContext, notices: list[tuple[str, str]]) -> str:
    """One `!`line``: its output (the Bash tool's, exit status included), or why it was not run."""
    def say(text: str) -> None:
        notices.append(("warning", f"/{command.name}: `{line}` {text}"))

    run = ctx.run_call
    if run is None:
        say("was not run: nothing here can run commands")
        return "[not run: no session to run it in]"
    saved = ctx.active_skill, ctx.skill_allowed_tools
    ctx.active_skill, ctx.skill_allowed_tools = f"/{command.name}", _grants(command)
    try:
        out: ToolOutput = await run("Bash", {"command": line, "description": f"/{command.name}"})
    finally:
        ctx.active_skill, ctx.skill_allowed_tools = saved
    if out.metadata.get("refused"):
        # Its first sentence: the rest of a refusal speaks to the model ("do not retry").
        why = out.content.strip().split(". ")[0].rstrip(".") or "refused"
        hint = f" (a {command.scope}'s command file grants nothing itself; allow it in your settings)" \
            if command.scope != "user" and command.allowed_tools else ""
        say(f"was not run: {why}{hint}")
        return f"[not run: {why}]"
    if out.is_error:
        status = _EXIT.search(out.content)
        say("failed" + (f" (exit status {status.group(1)})" if status else ""))
    return out.content


def _grants(command: CustomCommand) -> tuple[str, ...]:
    """The user's own command files grant what their `allowed-tools` say; a project's or a plugin's nothing."""
    if command.scope != "user" or not command.allowed_tools:
        return ()
    return parse_allowed_tools(command.allowed_tools) or ()


class CommandSource(PromptSource):
    """Implements agentcli.tools.base.ToolSource (commands only: no tools)."""

    def __init__(self, project_root: Path, ctx: ToolContext) -> None:
        self.root = project_root
        self.ctx = ctx
        self._notices: list[tuple[str, str]] = []

    async def expand(self, text: str) -> str | None:
        name, _, arguments = text[1:].partition(" ")
        command = load_commands(self.root).get(name)  # read now: a file changed mid-session is the one run
        if command is None:
            return None
        return await with_shell_output(command, arguments, self.ctx, self._notices)
