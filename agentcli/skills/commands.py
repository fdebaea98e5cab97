"""Custom slash commands (agentcli.settings.custom_commands) as a source of the registry: `/name args` becomes the
command's prompt in the REPL, `-p` and the Agent SDK alike, its `!`command``s run first, as Claude Code runs them.

Each `!`command`` is a Bash call made through the session's own path for the model's calls (hooks, the policy and
its question, the kernel sandbox, the Bash tool's output limit and redaction): `ToolContext.run_call`. What the
front matter's `allowed-tools` grants is checked the way a skill's is (it spares a question the defaults would ask;
deny and ask rules still win), and only for the user's own commands: a project's command file comes from the
repository, so its `!`command``s get exactly what the model's Bash call would get, no more (in the REPL they ask; in
`-p` they are refused unless the user's permissions allow them). Whatever was not run, or failed, is said in the
prompt (the model reads why) and in one notice (the user sees it), never left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from agentcli.llm.messages import ContentBlock
from agentcli.settings.custom_commands import CustomCommand, load_commands
from agentcli.skills.discovery import parse_allowed_tools
from agentcli.tools.base import Tool, ToolContext, ToolOutput

MAX_COMMANDS = 20  # `!`command``s run for one prompt; a file with more is refused whole
_EXIT = re.compile(r"^Exit code (-?\d+)$", re.M)


class CommandSource:
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
        wanted = command.shell_commands()
        if not wanted:
            return command.expand(arguments)
        if len(wanted) > MAX_COMMANDS:
            self._say(f"/{name}: {len(wanted)} `!` commands (at most {MAX_COMMANDS}); none was run")
            return command.expand(arguments, [f"[not run: more than {MAX_COMMANDS} commands]"] * len(wanted))
        return command.expand(arguments, [await self._run(command, line) for line in wanted])

    async def _run(self, command: CustomCommand, line: str) -> str:
        """One `!`line``: its output (the Bash tool's, exit status included), or why it was not run."""
        run = self.ctx.run_call
        if run is None:
            self._say(f"/{command.name}: `{line}` was not run: nothing here can run commands")
            return "[not run: no session to run it in]"
        grants = self._grants(command)
        saved = self.ctx.active_skill, self.ctx.skill_allowed_tools
        self.ctx.active_skill, self.ctx.skill_allowed_tools = f"/{command.name}", grants
        try:
            out: ToolOutput = await run("Bash", {"command": line, "description": f"/{command.name}"})
        finally:
            self.ctx.active_skill, self.ctx.skill_allowed_tools = saved
        if out.metadata.get("refused"):
            # Its first sentence: the rest of a refusal speaks to the model ("do not retry").
            why = out.content.strip().split(". ")[0].rstrip(".") or "refused"
            hint = " (a project's command file grants nothing itself; allow it in your settings)" \
                if command.scope == "project" and command.allowed_tools else ""
            self._say(f"/{command.name}: `{line}` was not run: {why}{hint}")
            return f"[not run: {why}]"
        if out.is_error:
            status = _EXIT.search(out.content)
            self._say(f"/{command.name}: `{line}` failed" + (f" (exit status {status.group(1)})" if status else ""))
        return out.content

    def _grants(self, command: CustomCommand) -> tuple[str, ...]:
        if command.scope == "project" or not command.allowed_tools:
            return ()
        return parse_allowed_tools(command.allowed_tools) or ()

    def _say(self, text: str) -> None:
        self._notices.append(("warning", text))

    async def refresh(self) -> None:
        return None

    def tools(self) -> list[Tool]:
        return []

    def lookup(self, name: str) -> Tool | str | None:
        return None

    def notices(self) -> list[tuple[str, str]]:
        out, self._notices = self._notices, []
        return out

    def servers(self) -> list[tuple[str, str]]:
        return []

    async def attachments(self, text: str) -> list[ContentBlock]:
        return []

    async def aclose(self) -> None:
        return None
