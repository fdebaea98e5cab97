"""Slash commands: `/name args` typed at the prompt. Built-ins live here; custom ones come from markdown files
(agentcli.settings.custom_commands). Each handler gets the session as `ReplHost` (agentcli.ui.host) and the
argument text."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from agentcli.core.prompt import INIT_PROMPT
from agentcli.modes import PERMISSION_MODES
from agentcli.ui import mcp_commands, skill_commands
from agentcli.ui.commands import ALIASES, COMMANDS, command
from agentcli.ui.status import MODE_LABELS

if TYPE_CHECKING:
    from agentcli.ui.host import ReplHost


def command_names(repl: ReplHost) -> list[tuple[str, str]]:
    """(name, description) of every command, built-in first, for completion and /help."""
    from agentcli.settings.custom_commands import load_commands

    names = [(c.name, c.description) for c in COMMANDS.values()]
    names.extend((c.name, f"{c.description} ({c.scope})") for c in load_commands(repl.root).values())
    names.extend(mcp_commands.prompt_names(repl))
    names.extend(skill_commands.skill_names(repl))
    return names


def is_command(text: str, repl: ReplHost) -> bool:
    """`/name …` where name is a command; other text starting with `/` (a path) goes to the model."""
    name = text[1:].split(None, 1)[0] if len(text) > 1 else ""
    return bool(name) and "/" not in name


async def dispatch(repl: ReplHost, text: str) -> None:
    name, _, args = text[1:].partition(" ")
    name = ALIASES.get(name, name)
    args = args.strip()
    builtin = COMMANDS.get(name)
    if builtin is not None:
        await builtin.handler(repl, args)
        return
    from agentcli.settings.custom_commands import load_commands

    if name in load_commands(repl.root):
        await repl.send(text)  # the registry's command source expands it, its `!`command``s run (skills.commands)
        return
    if name.startswith("mcp__") and await mcp_commands.run_prompt(repl, name, args):
        return
    if skill_commands.is_skill(repl, name):
        await repl.send(text)  # the registry's skill source expands it (agentcli.skills.source)
        return
    repl.renderer.notice(f"Unknown command /{name} — /help lists the commands", style="yellow")


def argument_sources(repl: ReplHost) -> dict[str, Callable[[], Iterable[tuple[str, str]]]]:
    return {
        "model": lambda: [(m, "") for m in model_names()],
        "mode": lambda: [(m, MODE_LABELS[m]) for m in PERMISSION_MODES],
        "preset": lambda: preset_names(repl),
        "thinking": lambda: [("on", "show reasoning"), ("off", "hide reasoning")],
        "resume": lambda: _session_choices(repl),
        "help": lambda: [(n, "") for n in COMMANDS],
    }


def model_names() -> list[str]:
    """Known model names from the provider catalog (empty if it cannot be read)."""
    try:
        from agentcli.providers.catalog import model_names as catalog_names

        return sorted(catalog_names())
    except Exception:  # completion must never raise
        return []


def preset_names(repl: ReplHost) -> list[tuple[str, str]]:
    try:
        from agentcli.settings.presets import list_presets

        return [(p.name, p.description) for p in list_presets(repl.root)]
    except Exception:  # a broken preset file must not break completion
        return []


def _session_choices(repl: ReplHost) -> list[tuple[str, str]]:
    try:
        from agentcli.session.index import list_sessions
        from agentcli.session.layout import sessions_dir

        return [(s.id[:8], s.title) for s in list_sessions(sessions_dir(repl.root)) if s.worth_listing][:30]
    except Exception:  # a broken index must not break completion
        return []


def _say(repl: ReplHost, text: str, style: str = "") -> None:
    repl.renderer.notice(text, style=style)


# ---- the commands -----------------------------------------------------------------------------------------


@command("help", "show the commands and keys")
async def _help(repl: ReplHost, args: str) -> None:
    from rich.table import Table

    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    # Text, not markup: usages hold brackets (`[edit [user|project|N]]`) that rich would take for style tags
    for c in COMMANDS.values():
        table.add_row(Text(f"/{c.name} {c.usage}".rstrip()), Text(c.description))
    for name, desc in command_names(repl)[len(COMMANDS) :]:
        table.add_row(Text(f"/{name}"), Text(desc))
    keys = (
        "enter send · alt-enter, ctrl-j or a trailing \\ new line · shift-tab cycle mode · ctrl-r history\n"
        "esc / ctrl-c interrupt a turn · ctrl-c twice or ctrl-d exit · !cmd shell · @path attach a file"
    )
    repl.console.print()
    repl.console.print(table)
    repl.console.print(Text(keys, style="dim"))


@command("exit", "leave (prints how to resume)")
async def _exit(repl: ReplHost, args: str) -> None:
    repl.exit_requested = True


@command("model", "show or switch the model", "[name]")
async def _model(repl: ReplHost, args: str) -> None:
    if not args:
        known = model_names()
        _say(repl, f"Model: {repl.model}" + (f"\nKnown models: {', '.join(known)}" if known else ""))
        return
    from agentcli.errors import AgentCliError
    from agentcli.ui import actions

    try:
        await actions.switch_model(repl, args)
    except AgentCliError as err:
        repl.error(err)
        return
    _say(repl, f"Model set to {repl.model}")


@command("mode", "show or set the permission mode", "[default|acceptEdits|plan|bypassPermissions]")
async def _mode(repl: ReplHost, args: str) -> None:
    if not args:
        _say(repl, f"Permission mode: {repl.mode} ({MODE_LABELS.get(repl.mode, repl.mode)})")
        return
    wanted = {m.lower(): m for m in PERMISSION_MODES}.get(args.lower())
    if wanted is None:
        _say(repl, f"Unknown mode {args!r}; one of: {', '.join(PERMISSION_MODES)}", "yellow")
        return
    repl.set_mode(wanted)
    _say(repl, f"Permission mode: {wanted}")


@command("plan", "switch to plan mode (read-only tools); with text, send it", "[prompt]")
async def _plan(repl: ReplHost, args: str) -> None:
    repl.set_mode("plan")
    _say(repl, "Permission mode: plan (only read-only tools run; shift-tab to leave)")
    if args:
        await repl.send(args)


@command("preset", "show or switch the tool preset", "[name]")
async def _preset(repl: ReplHost, args: str) -> None:
    from agentcli.ui import actions

    await actions.switch_preset(repl, args)


@command("tools", "list the tools this session may use")
async def _tools(repl: ReplHost, args: str) -> None:
    agent = await repl.ensure_agent()
    if agent is None:
        return
    lines = []
    for tool in agent.registry.tools():
        flags = "read-only" if tool.read_only else ("edits files" if tool.edits_files else "asks")
        lines.append(f"  {tool.name:<16} {flags}")
    _say(repl, "Tools:\n" + "\n".join(lines), "")


@command("cost", "tokens used and cost of this session")
async def _cost(repl: ReplHost, args: str) -> None:
    agent = repl.agent
    if agent is None:
        _say(repl, "Cost: $0.00 (nothing sent yet)")
        return
    u = agent.total_usage
    _say(
        repl,
        f"Cost: ${agent.total_cost_usd:.4f}{' (estimated tokens)' if u.estimated else ''}\n"
        f"Tokens: {u.input_tokens:,} in · {u.output_tokens:,} out · {u.cache_read_tokens:,} cache read · "
        f"{u.cache_write_tokens:,} cache write\n{_today()}",
        "",
    )


def _today() -> str:
    """Everything spent today (UTC), every session and project: what `agentcli usage --since` reads."""
    import time

    from agentcli.session.ledger import entries, summarize

    _, total = summarize(entries(time.strftime("%Y-%m-%d", time.gmtime())), "day")
    return f"Today, all sessions: ${total.cost_usd:.4f} over {total.requests} requests (agentcli usage for more)"


@command("context", "what fills the context window")
async def _context(repl: ReplHost, args: str) -> None:
    from agentcli.assembly.memory import load_memory
    from agentcli.ui.actions import context_report

    agent = await repl.ensure_agent()
    if agent is not None:
        repl.refresh_status()
        _say(repl, context_report(agent, load_memory(repl.cwd, repl.root).text), "")


@command("clear", "start a new session (the current one stays stored)")
async def _clear(repl: ReplHost, args: str) -> None:
    await repl.rebuild(resume=None, fork=False, clear=True)
    repl.context.clear()
    _say(repl, "Started a new session.")


@command("hooks", "list the hooks in force (configure them in settings; import with `agentcli hooks import`)")
async def _hooks(repl: ReplHost, args: str) -> None:
    from agentcli.hooks.setup import load_specs

    specs, warnings = load_specs(repl.settings)
    lines = [f"{s.event}{f' [{s.matcher}]' if s.matcher else ''}: {s.command}  ({s.source})" for s in specs]
    _say(repl, "\n".join(lines + warnings) or "No hooks configured.", "")


@command("todos", "show the agent's todo list (what TodoWrite last set)")
async def _todos(repl: ReplHost, args: str) -> None:
    from agentcli.ui.render import todo_list

    todos = repl.agent.todos if repl.agent is not None else ()
    repl.renderer.notice(todo_list(todos).plain if todos else "No todos yet: the agent has not written a list.", "")


@command("agents", "subagents: the definitions, and background ones (show ID / stop ID)", "[show|stop ID]")
async def _agents(repl: ReplHost, args: str) -> None:
    from agentcli.agents.definitions import load_definitions

    agent = repl.agent
    runner = agent.subagents if agent is not None else None
    verb, _, task_id = args.partition(" ")
    job = runner.background.get(task_id.strip()) if runner is not None and task_id else None
    if verb in ("show", "stop") and job is None:
        _say(repl, f"No background task {task_id.strip()!r}.", "yellow")
    elif verb == "stop" and runner is not None:
        await runner.stop(task_id.strip())
        _say(repl, f"Stopped {task_id.strip()}.")
    elif verb == "show" and job is not None:
        _say(repl, f"{job.task_id} ({job.definition.name}, {job.status})\n\n{job.answer or job.text_so_far()}", "")
    else:
        defs = runner.definitions if runner is not None else load_definitions(repl.settings.project_root)[0]
        lines = [f"{d.name} ({d.source}): {d.description}" for d in defs.values()]
        jobs = runner.background.values() if runner is not None else []
        lines += [f"  {j.task_id} {j.definition.name} {j.status}: {j.description}" for j in jobs]
        _say(repl, "\n".join(lines), "")


@command("compact", "summarise the conversation to free context; optionally say what to focus on", "[focus]")
async def _compact(repl: ReplHost, args: str) -> None:
    agent = await repl.ensure_agent()
    if agent is not None:
        await repl.command(agent.compact(args or None), "Compacting")


@command("resume", "resume a stored session of this project (no id: pick one)", "[id|name]")
async def _resume(repl: ReplHost, args: str) -> None:
    if not args:
        from agentcli.ui.actions import pick_session

        picked = await pick_session(repl)
        if picked is None:
            return
        args = picked
    if repl.agent is not None and repl.agent.session_id.startswith(args):
        _say(repl, "That is the current session.")
        return
    await repl.resume(args)


@command("fork", "continue this conversation in a new session", "[name]")
async def _fork(repl: ReplHost, args: str) -> None:
    await _branch_off(repl, args or None)


@command("branch", "fork here into a named branch and continue there", "<name>")
async def _branch(repl: ReplHost, args: str) -> None:
    if not args:
        _say(repl, "Usage: /branch NAME — continues in a new session named NAME (the current one stays as it is)",
             "yellow")
        return
    await _branch_off(repl, args)


async def _branch_off(repl: ReplHost, name: str | None) -> None:
    """Fork the current session at its last record into a new session (named `name`) and continue there."""
    agent = repl.agent
    if agent is None or not agent.messages:
        _say(repl, "Nothing to fork yet.")
        return
    if repl.built is None or repl.built.session.writer is None:
        _say(repl, "This session is not stored (--no-session-persistence): there is nothing to fork from.", "yellow")
        return
    if name is not None and _name_taken(repl, name):
        _say(repl, f"A session named {name!r} already exists here; pick another name.", "yellow")
        return
    old = agent.session_id
    await repl.rebuild(resume=old, fork=True, name=name)
    if repl.agent is None or repl.agent.session_id == old:
        return
    new = repl.agent.session_id
    label = f"{name} ({new[:8]})" if name else new[:8]
    _say(repl, f"Forked {old[:8]} → {label}; the original stays: /resume {old[:8]}")


def _name_taken(repl: ReplHost, name: str) -> bool:
    from agentcli.session.index import list_sessions
    from agentcli.session.layout import sessions_dir

    return any(s.name == name for s in list_sessions(sessions_dir(repl.root)))


@command("rewind", "go back to before an earlier prompt (shows the diff, asks first)", "[n] [chat|code|both]")
async def _rewind(repl: ReplHost, args: str) -> None:
    from agentcli.ui.rewind import rewind

    await rewind(repl, args)


@command("sessions", "list this project's stored sessions")
async def _sessions(repl: ReplHost, args: str) -> None:
    choices = _session_choices(repl)
    if not choices:
        _say(repl, "No stored sessions for this project.")
        return
    _say(repl, "Sessions (newest first):\n" + "\n".join(f"  {sid}  {title}" for sid, title in choices), "")


@command("thinking", "show or hide the model's reasoning", "[on|off]")
async def _thinking(repl: ReplHost, args: str) -> None:
    show = {"on": True, "off": False}.get(args.lower(), not repl.renderer.show_thinking)
    repl.renderer.show_thinking = show
    _say(repl, f"Reasoning is {'shown' if show else 'hidden'}.")


@command("init", "write an AGENTS.md for this repository")
async def _init(repl: ReplHost, args: str) -> None:
    await repl.send(INIT_PROMPT + (f"\n\nAlso: {args}" if args else ""))


@command("memory", "show the memory files (AGENTS.md …); edit one in $EDITOR", "[edit [user|project|N]]")
async def _memory(repl: ReplHost, args: str) -> None:
    from agentcli.ui.memory import memory_command

    await memory_command(repl, args)

