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
    from agentcli.assembly import runtime, selection
    from agentcli.assembly.resumed import public_url

    settings = repl.settings
    same_setup = "/" not in name
    sel = selection.select(
        name,
        settings.provider if same_setup else None,
        settings.base_url if same_setup else None,
        settings.providers,
        request_timeout_s=settings.request_timeout_s,
        max_retries=settings.max_retries,
    )
    provider = runtime.make_provider(sel)
    try:
        _check_credentials(provider)  # refused now, not at the next prompt: nothing is switched
    except AgentCliError:
        await provider.aclose()
        raise
    agent = repl.agent
    repl.settings.model, repl.settings.provider = sel.label, None
    repl.status.model = sel.model
    if agent is None:
        await provider.aclose()
        repl.cancel_build()
        return
    await agent.switch_model(provider, sel.model, sel.config.name, recorded_provider=sel.pricing_provider,
                             base_url=public_url(sel.config.base_url))
    repl.refresh_status()


def _check_credentials(provider: object) -> None:
    """The adapter's own key check (under the retry and text-call wrappers): AuthError when a key is missing."""
    while provider is not None:
        check = getattr(provider, "check_credentials", None)
        if callable(check):
            check()
            return
        provider = getattr(provider, "inner", None)


async def switch_preset(repl: ReplHost, name: str) -> None:
    """`/preset [name]`: list the presets, or switch this session to one: its tools, rules, mode and
    system-prompt addendum apply from the next turn on (the conversation is kept)."""
    from agentcli.assembly import runtime
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
    agent = repl.agent
    if agent is None:
        if preset.permission_mode:
            repl.set_mode(preset.permission_mode)
        repl.renderer.notice(f"Preset {name}: {', '.join(preset.tools)}")
        return
    mode = preset.permission_mode or agent.mode
    settings = dataclasses.replace(repl.settings, permission_mode=mode)
    kept = list(getattr(agent.policy, "session_rules", lambda: [])())  # "this session" approvals survive
    policy = runtime.make_policy(settings, agent.ctx, preset, kept)
    agent.switch_preset(name, policy=policy, tools=runtime.tool_names(preset, policy.mode),
                        system_prompt=runtime.build_prompt(settings, preset))
    repl.set_mode(agent.mode)
    repl.renderer.notice(f"Preset {name}: {', '.join(agent.registry.enabled)} · mode {agent.mode}")


def context_report(agent: Agent) -> str:
    """`/context`: what fills the window, estimated at ~4 characters a token where the provider has not said."""
    from agentcli.llm.messages import block_to_dict

    def tokens(chars: int) -> int:
        return chars // 4

    tools = agent.registry.tools()
    schema = sum(len(json.dumps(t.input_schema)) + len(t.description) for t in tools)
    messages = sum(len(json.dumps(block_to_dict(b))) for m in agent.messages for b in m.content)
    rows = [
        ("system prompt", tokens(len(agent.options.system_prompt))),
        (f"tools ({len(tools)})", tokens(schema)),
        (f"messages ({len(agent.messages)})", tokens(messages)),
    ]
    total = sum(n for _, n in rows)
    window = agent.options.context_window_fn(agent.options.model)
    lines = [f"Context ({agent.options.model}):"]
    for label, n in rows:
        share = f" ({100 * n / window:.1f}%)" if window else ""
        lines.append(f"  {label:<18} ~{n:,} tokens{share}")
    if agent.last_input_tokens:
        lines.append(f"  last request       {agent.last_input_tokens:,} tokens (reported by the provider)")
    # what the status line shows: the provider's count of the last request, the estimate only before one
    used = agent.last_input_tokens or total
    lines.append(
        f"  window             {window:,} tokens, {100 * used / window:.0f}% used"
        if window
        else f"  window             unknown for this model (~{total:,} tokens used)"
    )
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
