"""The heavier slash-command actions: switching model or preset, reporting the context, picking a session."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

from agentcli.errors import AgentCliError

if TYPE_CHECKING:
    from agentcli.core.loop import Agent
    from agentcli.ui.host import ReplHost


async def switch_model(repl: ReplHost, name: str) -> None:
    """`/model name`: a bare name stays with this session's provider setup; `provider/model` picks another."""
    from agentcli.assembly.switching import prepare_model

    switch = await prepare_model(repl.settings, name)  # refused now, not at the next prompt
    agent = repl.agent
    repl.settings = dataclasses.replace(
        repl.settings, model=dataclasses.replace(repl.settings.model, name=switch.selection.label, provider=None))
    if agent is None:
        repl.choose_model(switch.selection.model)
        await switch.discard()
        repl.cancel_build()
        return
    await switch.apply(agent)
    repl.refresh_status()


async def switch_preset(repl: ReplHost, name: str) -> None:
    """`/preset [name]`: list the presets, or switch this session to one: its tools, rules, mode and
    system-prompt addendum apply from the next turn on (the conversation is kept)."""
    from agentcli.assembly import runtime
    from agentcli.assembly.switching import preset_policy
    from agentcli.core.compactor import session_rules
    from agentcli.settings import presets

    if not name:
        lines = [f"  {p.name:<10} {p.description}" for p in presets.list_presets(repl.root)]
        current = repl.settings.preset or "(none: the default tools)"
        repl.renderer.notice(f"Preset: {current}\nPresets:\n" + "\n".join(lines) + "\nSwitch with /preset <name>")
        return
    try:
        preset = presets.load_preset(name, repl.root)
    except AgentCliError as err:
        repl.error(err)
        return
    repl.settings = dataclasses.replace(repl.settings, preset=name)
    from agentcli.tools.names import resolve_tools, unknown_tool_notices

    for text in unknown_tool_notices(f"preset {name}", resolve_tools(preset.tools)[1]):
        repl.renderer.notice(text, style="yellow")
    agent = repl.agent
    if agent is None:
        repl.cancel_build()  # one being built in the background has the old preset's tools
        if preset.permission_mode:
            repl.set_mode(preset.permission_mode)
        repl.renderer.notice(f"Preset {name}: {', '.join(preset.tools)}")
        return
    mode = preset.permission_mode or agent.mode
    settings = dataclasses.replace(repl.settings, permissions=dataclasses.replace(repl.settings.permissions, mode=mode))
    kept = session_rules(agent)  # "this session" approvals survive (the one reader, as compaction records them)
    policy = preset_policy(settings, agent, preset, kept)
    agent.switch_preset(name, policy=policy, tools=runtime.tool_names(preset, policy.mode),
                        system_prompt=runtime.build_prompt(settings, preset))
    repl.set_mode(agent.mode)
    repl.renderer.notice(f"Preset {name}: {', '.join(agent.registry.enabled)} · mode {agent.mode}")


def context_report(agent: Agent, memory: str = "") -> str:
    """`/context`: the window, what fills it by kind, and where compaction starts. The total is the figure the
    status line shows (the provider's count of the last request plus what was added since); the kinds are
    tiktoken counts, scaled to that total."""
    from agentcli.core.tokens import count_tokens, message_tokens
    from agentcli.llm.messages import Message, ToolResultBlock

    tools = agent.registry.tools()
    system = agent.options.system_prompt
    memory_in_system = memory if memory and memory in system else ""
    nested = "\n\n".join(agent.nested_memory_texts())
    results = [Message("user", tuple(b for b in m.content if isinstance(b, ToolResultBlock))) for m in agent.messages]
    others = [Message(m.role, tuple(b for b in m.content if not isinstance(b, ToolResultBlock)))
              for m in agent.messages]
    kinds = [
        ("system prompt", count_tokens(system.replace(memory_in_system, ""))),
        (f"tools ({len(tools)})", count_tokens("".join(json.dumps(t.input_schema) + t.description for t in tools))),
        ("memory files", count_tokens(memory_in_system) + count_tokens(nested)),
        (f"messages ({len(agent.messages)})", sum(message_tokens(m) for m in others if m.content)
         - count_tokens(nested)),
        ("tool results", sum(message_tokens(m) for m in results if m.content)),
    ]
    used = agent.context_tokens()
    raw = sum(max(0, n) for _, n in kinds) or 1
    window = agent.window()
    limit = agent.compact_limit()
    lines = [f"Context ({agent.options.model}):"]
    for label, n in kinds:
        share = used * max(0, n) / raw
        pct = f" ({100 * share / window:.1f}%)" if window else ""
        lines.append(f"  {label:<18} ~{round(share):,} tokens{pct}")
    if window:
        lines.append(f"  used               {used:,} of {window:,} tokens ({min(100, round(100 * used / window))}%)")
    else:
        lines.append(f"  used               {used:,} tokens (window unknown: set model_context_window)")
    if limit:
        where = f" ({round(100 * limit / window)}% of the window)" if window else ""
        lines.append(f"  compacts at        {limit:,} tokens{where}; /compact [focus] compacts now")
    else:
        lines.append("  compacts           only when the provider says the prompt is too long, or on /compact")
    return "\n".join(lines)


async def pick_session(repl: ReplHost) -> str | None:
    """`--resume` without an id, `/resume`: pick one of this project's sessions (agentcli.ui.picker); its id,
    or None if there is none or the user cancelled."""
    from agentcli.session.index import list_sessions
    from agentcli.session.layout import sessions_dir
    from agentcli.ui.picker import SessionPicker

    current = repl.agent.session_id if repl.agent is not None else None
    sessions = [s for s in list_sessions(sessions_dir(repl.root)) if s.id != current and s.worth_listing]
    if not sessions:
        repl.renderer.notice("No stored sessions in this project to resume.", style="yellow")
        return None
    return await SessionPicker(sessions).run()
