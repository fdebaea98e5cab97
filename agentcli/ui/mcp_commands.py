"""`/mcp` (servers, their tools, reconnect), `/mcp__server__prompt` (a server's prompt) and a server's questions
(`elicitation/create`) in the REPL."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from agentcli.ui.commands import command

if TYPE_CHECKING:
    from agentcli.core.parts import McpServers
    from agentcli.ui.host import ReplHost as Repl

USAGE = "/mcp [tools [server] | reconnect [server] | login server | logout server]"


async def manager_of(repl: Repl) -> McpServers | None:
    agent = await repl.ensure_agent()
    if agent is None:
        return None
    found = agent.mcp
    if found is None:
        repl.renderer.notice("No MCP servers configured. Add one: agentcli mcp add NAME -- COMMAND [ARG…]")
    return found


@command("mcp", "MCP servers: status, tools, reconnect, OAuth login", "[tools|reconnect|login|logout [server]]")
async def _mcp(repl: Repl, args: str) -> None:
    manager = await manager_of(repl)
    if manager is None:
        return
    await manager.refresh()  # servers still connecting get the grace the first request would give them
    words = args.split()
    verb, name = [*words, "", ""][:2]
    if verb in ("", "status"):
        lines = manager.status_lines() or ["(none)"]
        repl.renderer.notice("MCP servers:\n" + "\n".join(f"  {ln}" for ln in lines))
    elif verb == "tools":
        rows = [f"  {t.name}{'  (read-only)' if t.read_only else ''}" for t in manager.all_tools()
                if not name or t.name.startswith(f"mcp__{name}__")]
        repl.renderer.notice("MCP tools:\n" + ("\n".join(rows) or "  (none)"))
    elif verb == "reconnect":
        if name and name not in manager.connections:
            repl.renderer.notice(f"No connected-or-failed MCP server named '{name}'", style="yellow")
            return
        done = await manager.reconnect(name or None)
        repl.renderer.notice(f"Reconnected: {', '.join(done) or 'nothing to reconnect'}")
        repl.renderer.notice("\n".join(f"  {ln}" for ln in manager.status_lines()))
    elif verb in ("login", "logout") and name:
        await _login(repl, manager, verb, name)
    else:
        repl.renderer.notice(f"Usage: {USAGE}", style="yellow")


async def _login(repl: Repl, manager: McpServers, verb: str, name: str) -> None:
    """Claude Code's "Authenticate" / "Clear authentication" of `/mcp`: the browser flow of agentcli.mcp.oauth,
    the page's URL shown here; the server reconnects with the new login."""
    from agentcli.errors import AgentCliError
    from agentcli.mcp.manager import McpManager

    if not isinstance(manager, McpManager):
        return
    if verb == "logout":
        from agentcli.mcp.oauth_store import forget

        cfg = manager.config.servers.get(name)
        gone = cfg is not None and forget(cfg)
        repl.renderer.notice(f"Logged out of MCP server '{name}'" if gone else f"No stored login for '{name}'")
        return
    try:
        said = await manager.login(name, lambda text: repl.renderer.notice(text, soft_wrap=True))
    except AgentCliError as err:
        repl.renderer.notice(err.one_line(), style="yellow")
        return
    repl.renderer.notice(said)


def prompt_names(repl: Repl) -> list[tuple[str, str]]:
    """(`mcp__server__prompt`, description) of the connected servers' prompts, for completion and /help."""
    agent = repl.agent
    manager = agent.mcp if agent is not None else None
    if manager is None:
        return []
    return [(name, str(p.get("description") or "MCP prompt")) for name, _, p in manager.prompts()]


async def run_prompt(repl: Repl, name: str, args: str) -> bool:
    """`/mcp__server__prompt args`: fetch the prompt and send it; False when no such prompt exists."""
    from agentcli.mcp.mentions import missing_arguments, prompt_arguments, prompt_text

    manager = await manager_of(repl)
    if manager is None:
        return False
    await manager.refresh()
    for full, conn, prompt in manager.prompts():
        if full != name:
            continue
        values = prompt_arguments(prompt, args)
        missing = missing_arguments(prompt, values)
        if missing:
            repl.renderer.notice(f"/{name} needs: {', '.join(missing)}", style="yellow")
            return True
        try:
            result = await conn.get_prompt(str(prompt.get("name")), values, 30.0)
        except Exception as err:  # a server failing its prompt is a notice, not a crash
            repl.renderer.notice(f"/{name} failed: {type(err).__name__}: {err}", style="yellow")
            return True
        text = prompt_text(result)
        if text:
            await repl.send(text)
        return True
    return False


def attach_elicitor(agent: Any) -> None:
    """A server's question (`elicitation/create`) during this agent's turns is asked at the terminal, through the
    approver's pause-and-ask (as a permission question is); without one it is declined (agentcli.mcp.manager)."""
    if agent.mcp is None:  # no MCP servers: nothing of agentcli.mcp is imported
        return
    from agentcli.mcp.manager import McpManager

    manager, approver = agent.mcp, agent.approver
    inner = getattr(approver, "inner", approver)
    if not isinstance(manager, McpManager) or not callable(getattr(inner, "ask", None)) or \
            not callable(getattr(inner, "choose", None)):
        return
    paused = getattr(approver, "paused", contextlib.nullcontext)

    async def elicit(server: str, request: dict[str, Any]) -> dict[str, Any]:
        with paused():
            try:
                return await _ask_form(inner, server, request)
            except (KeyboardInterrupt, EOFError):
                return {"action": "cancel"}

    manager.elicitor = elicit


async def _ask_form(inner: Any, server: str, request: dict[str, Any]) -> dict[str, Any]:
    from agentcli.mcp.elicit import form_fields, parse
    from agentcli.settings.trust import printable

    fields = form_fields(request)
    inner.say(f"MCP server '{server}' asks: {printable(str(request.get('message', '')))}")
    if fields is None:
        inner.say("(a kind of question agentcli cannot show; declined)")
        return {"action": "decline"}
    choice = await inner.choose("Answer it?", ["Answer", "Decline", "Cancel"])
    if choice != 0:
        return {"action": "decline" if choice == 1 else "cancel"}
    content: dict[str, Any] = {}
    for field in fields:
        while True:
            text = await inner.ask(field.prompt(), default=field.default)
            if not text.strip() and not field.required:
                break
            try:
                content[field.name] = parse(field, text)
                break
            except ValueError as err:
                inner.say(f"  expected {err}")
    return {"action": "accept", "content": content}
