"""Builds a ready Agent from Settings: provider, tools, policy, tool context, session and system prompt.

Shared by every front end (headless printers, REPL, Python API), so they differ only in how they show events
and who answers approvals.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any

from agentcli.assembly import sdkparts, selection
from agentcli.assembly.extensions import attach_extensions, with_plugins
from agentcli.assembly.firstrun import require_configured
from agentcli.assembly.models import context_window_fn, cost_fn, make_provider
from agentcli.assembly.resumed import carry_usage, public_url, with_session_setup
from agentcli.assembly.toolsseen import known_dropped, watch_tools
from agentcli.core.hooks import Hooks
from agentcli.core.loop import Agent, AgentOptions, NestedMemory
from agentcli.core.permissions import Approver, Policy
from agentcli.core.prompt import system_prompt
from agentcli.core.state import SessionState
from agentcli.core.todos import todos_from
from agentcli.errors import ConfigError, UsageError
from agentcli.net.http import is_loopback_url
from agentcli.net.preload import start_for as preload_http
from agentcli.providers import catalog
from agentcli.providers.base import Effort, Provider
from agentcli.sandbox.env import child_env
from agentcli.session.store import OpenedSession
from agentcli.settings.config import Settings

if TYPE_CHECKING:
    from agentcli.mcp.config import McpConfig
    from agentcli.mcp.manager import McpManager
    from agentcli.mcp.sdk_transport import SdkRequest
    from agentcli.plugins.loaded import Loaded
    from agentcli.settings.presets import Preset
    from agentcli.telemetry.setup import DeferredRecorder
from agentcli.record import record
from agentcli.settings.extensions import mcp_configured
from agentcli.tools.base import FileAccess, ToolContext
from agentcli.tools.registry import DEFAULT_TOOLS, ToolRegistry, resolve_tools, unknown_tool_notices


async def select_provider(settings: Settings) -> selection.Selection:
    """The provider and model for this run; on a first run with nothing configured, a ConfigError that says
    how to configure one and which local servers are listening."""
    await require_configured(settings.model.name, settings.model.provider, settings.model.base_url)
    sel = selection.select(
        settings.model.name, settings.model.provider, settings.model.base_url, settings.model.providers,
        request_timeout_s=settings.model.request_timeout_s, max_retries=settings.model.max_retries,
        model_overrides=settings.model.overrides,
    )
    from agentcli.assembly.served import name_served_model, openai_url_for

    m = settings.model
    url = await openai_url_for(sel, m.base_url, m.provider, m.name)
    if url is not None:  # a llama.cpp (or other OpenAI-compatible) URL given without its /v1
        sel = selection.select(m.name, m.provider, url, m.providers, request_timeout_s=m.request_timeout_s,
                               max_retries=m.max_retries, model_overrides=m.overrides)
    return await name_served_model(sel, named=bool(m.name))


def compact_provider_fn(settings: Settings) -> Callable[[], tuple[Provider, str]] | None:
    """`compact_model`: the summaries come from another (cheaper or local) model, built on first use."""
    name = settings.model.compact_model
    if not name:
        return None
    made: list[tuple[Provider, str]] = []

    def provider() -> tuple[Provider, str]:
        if not made:
            same_setup = "/" not in name
            sel = selection.select(name, settings.model.provider if same_setup else None,
                                   settings.model.base_url if same_setup else None, settings.model.providers,
                                   request_timeout_s=settings.model.request_timeout_s,
                                   max_retries=settings.model.max_retries,
                                   model_overrides=settings.model.overrides)
            made.append((make_provider(sel), sel.model))
        return made[0]

    return provider


def auto_compact_limit(settings: Settings) -> int | None:
    limit = settings.model.auto_compact_token_limit
    if limit is not None and limit < 1000:
        raise ConfigError(f"model_auto_compact_token_limit must be at least 1000 tokens, got {limit}")
    return limit


def restore_todos(opened: OpenedSession, session: SessionState) -> None:
    """A resumed session's todo list: the last one recorded on its branch."""
    for rec in reversed(opened.replay):
        if rec.get("type") in ("todos", "compaction") and isinstance(rec.get("data"), dict):
            session.todos = todos_from(rec["data"].get("todos"))
            return


def tool_context(settings: Settings) -> ToolContext:
    root = settings.project_root
    return ToolContext(
        project_root=root,
        add_dirs=settings.permissions.add_dirs,
        shell_cwd=settings.cwd,
        tool_timeout_s=settings.session.tool_timeout_s,
        env=child_env(os.environ, settings),
        secrets=settings.secrets,
    )


def _path_denied(ctx: ToolContext) -> Callable[[str], bool]:
    """The Read-deny test on a path alone (no I/O), for the sandbox's walk of the project: asked of the policy in
    force at each call (`ctx.reads`; a preset switch brings another), whose matcher changes with its rules."""
    return lambda path: ctx.reads is not None and bool(ctx.reads.denied_matcher()[0](path))


def attach_sandbox(settings: Settings, ctx: ToolContext, session: SessionState, preset: Preset | None) -> str | None:
    """Give the session its sandbox (agentcli.sandbox), which reads the permission mode from the session's one
    state; returns the start-up notice when it cannot confine."""
    from agentcli.sandbox import for_settings

    preset_mode = preset.extra.get("sandbox_mode") if preset else None
    ctx.sandbox = for_settings(
        settings, preset_mode=preset_mode if isinstance(preset_mode, str) else None,
        read_denied=_path_denied(ctx), current_permission_mode=lambda: session.mode,
    )
    if settings.sandbox.unconfined:
        ctx.unsandboxed = list(settings.sandbox.unconfined)
    return ctx.sandbox.startup_notice()


def make_policy(settings: Settings, ctx: ToolContext, preset: Preset | None, session_rules: list[str]) -> Policy:
    from agentcli.permissions.loader import load_policy

    return load_policy(
        settings.project_root,
        settings.permissions.mode if settings.permissions.mode != "default" else None,
        settings.permissions.allowed_tools,
        settings.permissions.disallowed_tools,
        settings.permissions.add_dirs,
        session_rules,
        preset_rules=preset.rules() if preset else None,
        preset_mode=preset.permission_mode if preset else None,
        ctx=ctx,
        trust_project=not settings.untrusted,
        settings_table=settings.permissions.from_settings_arg,
        sources=settings.setting_sources,
        fallback_mode=settings.permissions.fallback,
    )


def make_hooks(settings: Settings, ctx: ToolContext, opened: OpenedSession,
               approver: Approver | None = None) -> tuple[Hooks | None, list[str]]:
    """The hook runner, or None (and nothing imported) when no hooks are configured; plus load warnings."""
    if not settings.hooks.layers:
        return None, []
    from agentcli.hooks.setup import make_engine

    path = opened.writer.path if opened.writer is not None else None
    return make_engine(settings, ctx, str(path) if path else None, approver)


def publish_web(ctx: ToolContext, policy: Policy, settings: Settings) -> None:
    """What the web tools need from settings and rules (tools never read either): the search backend, and the
    private hosts an allow rule names exactly (`WebFetch(domain:127.0.0.1)`), which WebFetch may then reach."""
    from agentcli.permissions.policy import RulePolicy

    ctx.web.search = dict(settings.web_search or {})
    if isinstance(policy, RulePolicy):
        ctx.web.private_hosts = frozenset({
            r.specifier[len("domain:"):].lower().rstrip(".") for r in policy.rules
            if r.tool == "WebFetch" and r.behavior == "allow" and r.specifier
            and r.specifier.startswith("domain:") and "*" not in r.specifier
        })


def publish_model(agent: Agent, settings: Settings) -> None:
    """Tools that depend on the model (Read of an image) ask through the context, at the moment they run, so a
    /model switch is seen at once."""
    agent.ctx.model = agent


def load_preset(settings: Settings) -> Preset | None:
    if not settings.preset:
        return None
    from agentcli.settings.presets import load_preset as load

    return load(settings.preset, settings.project_root)


def remembered_rules(opened: OpenedSession) -> list[str]:
    """Rules the user allowed "for this session" in earlier runs of a resumed session."""
    rules: list[str] = []
    for r in opened.replay:
        data: dict[str, Any] = r["data"] if isinstance(r.get("data"), dict) else {}
        if r.get("type") == "compaction":  # a session loaded from its last compaction: the rules until then
            rules = [str(x) for x in data.get("rules") or () if isinstance(x, str)]
        elif r.get("type") == "rule" and data.get("scope") == "session":
            rules.append(str(data["rule"]))
    return rules


def tool_names(preset: Preset | None, mode: str, exact: tuple[str, ...] | None = None) -> list[str]:
    """The tools of the session: `exact` (--tools) when given, else the preset's, else agentcli's default."""
    if exact is not None:
        return sdkparts.exact_tools(exact, mode)
    names = resolve_tools(preset.tools)[0] if preset else list(DEFAULT_TOOLS)
    if mode == "plan" and "ExitPlanMode" not in names:
        names.append("ExitPlanMode")
    return names


def open_sink(settings: Settings, sel: selection.Selection, label: str | None = None) -> OpenedSession:
    """The session to write to and the history to continue from (see agentcli.session.store)."""
    from agentcli.session.store import open_session

    if settings.session.resume == "":
        raise UsageError("--resume needs a session id or name here", hint="agentcli sessions list shows them")
    if settings.session.resume_at and not (settings.session.resume or settings.session.continue_):
        raise UsageError("--resume-session-at needs --resume or --continue")
    return open_session(
        settings.project_root,
        cwd=settings.cwd,
        model=sel.model,
        provider=sel.pricing_provider,
        base_url=public_url(sel.config.base_url),
        continue_=settings.session.continue_,
        resume=settings.session.resume,
        fork_session=settings.session.fork,
        session_id=settings.session.session_id,
        resume_at=settings.session.resume_at,
        no_persistence=settings.session.no_persistence,
        name=settings.session.name,
        secrets=settings.secrets,
        provider_label=label,
    )


def nested_memory(settings: Settings) -> NestedMemory:
    from agentcli.assembly.memory import NestedMemoryFiles

    return NestedMemoryFiles(settings.cwd, settings.project_root)


def build_prompt(settings: Settings, preset: Preset | None = None) -> str:
    """agentcli's system prompt; `--system-prompt` replaces all of it but the memory files and the additions,
    as Claude Code's does."""
    from agentcli.assembly.memory import load_memory

    memory = load_memory(settings.cwd, settings.project_root, settings.setting_sources)
    if settings.system_prompt is not None:
        addendum = preset.system_prompt_append if preset else None
        parts = (settings.system_prompt, memory.text, addendum, settings.append_system_prompt)
        return "\n\n".join(p for p in parts if p)
    return system_prompt(
        settings.cwd, settings.project_root, memory=memory.text, append=settings.append_system_prompt,
        replace=settings.system_prompt, addendum=preset.system_prompt_append if preset else None,
    )


@record(frozen=False)
class Built:
    """A ready agent plus what front ends show around it: the selection, the session's notices and replay."""

    agent: Agent
    selection: selection.Selection
    session: OpenedSession
    info: list[str] = field(default_factory=list)


TOOL_CALLING = {
    "native": "calls tools natively",
    "text": "writes tool calls as text (agentcli extracts them)",
    "none": ("does not call tools: the server's chat template drops them, so the model never sees agentcli's "
             "tools and can only answer in text. Use a model whose template supports tools (e.g. Qwen2.5/Qwen3, "
             "Llama 3.1+), or start llama-server with --jinja and a tool-capable --chat-template-file"),
    "unknown": "tool calling not reported by the server (text tool calls are extracted if they appear)",
}


def _probe_url(sel: selection.Selection) -> str | None:
    """The local endpoint the first-use probe reads (Ollama's native root, or an OpenAI-compatible base)."""
    if sel.config.name not in ("ollama", "openai"):
        return None
    url = sel.config.base_url
    if sel.config.name == "ollama":
        from agentcli.providers.ollama import ollama_base_url

        url = ollama_base_url(url)
    return url if url is not None and is_loopback_url(url) else None


async def first_use_probe(sel: selection.Selection) -> str | None:
    """On the first use of a local endpoint with a model, read what it says about itself (no model call):
    context window and, where the server tells, tool calling. Cached under $AGENTCLI_HOME/cache."""
    kind = "ollama" if sel.config.name == "ollama" else "openai"
    url = _probe_url(sel)
    if url is None:
        return None
    from agentcli.providers.probecache import cached

    if cached(url, sel.model) is not None:  # known already: the probe's HTTP parts are not even imported
        return None
    from agentcli.providers import probe

    try:
        found = await probe.probe(kind, url, sel.model, api_key=sel.config.api_key, timeout_s=2.0, chat=False)
    except Exception:  # a probe that fails must not stop the run; the first request will say more
        return None
    window = f"context window {found.context_window} tokens" if found.context_window else "context window unknown"
    return f"First use of {url} ({sel.model}): {window}; {TOOL_CALLING.get(found.tool_calling, found.tool_calling)}."


def probe_note(note: str | None, opened: OpenedSession) -> str | None:
    """The first-use probe's note: an aside, or a warning (yellow; on stderr with -p) when the server's chat
    template drops tools."""
    if note is not None and note.endswith(TOOL_CALLING["none"] + "."):
        opened.notices.append(note)
        return None
    return note


def start_telemetry(settings: Settings) -> tuple[DeferredRecorder, list[str]] | None:
    """OpenTelemetry's recorder, loading in the background, and its notices; None when telemetry is off (then
    nothing of it is imported)."""
    if not settings.telemetry.enabled:
        return None
    from agentcli.telemetry.setup import start

    return start(log_prompts=settings.telemetry.log_prompts)


def untrusted_notice(settings: Settings) -> str:
    return (f"This project's settings (.agentcli/) are not trusted, so their grants were ignored: "
            f"{'; '.join(settings.untrusted)}. Read it, then trust it with: agentcli permissions trust")


async def agent_options(settings: Settings, sel: selection.Selection, preset: Preset | None,
                        window_fn: Callable[[str], int | None], limit: int | None, *, label: str | None = None,
                        await_background: bool = False) -> AgentOptions:
    """What the session's agent is configured with: its model, prompt, limits, prices and windows (`window_fn`
    and `limit` checked before the session file was opened). `await_background`: -p and the SDK, where nobody
    hears a background subagent's later answer, wait for it before the run ends."""
    return AgentOptions(
        model=sel.model,
        provider_name=sel.config.name,
        system_prompt=build_prompt(settings, preset),
        max_turns=settings.session.max_turns,
        max_budget_usd=settings.session.max_budget_usd,
        max_tool_calls_per_turn=settings.session.max_tool_calls_per_turn,
        max_tokens=settings.model.max_tokens,
        effort=thinking_effort(settings),
        cost_fn=cost_fn(settings.model.prices, sel.pricing_provider),
        context_window_fn=window_fn,
        auto_compact_limit=limit,
        compact_provider=compact_provider_fn(settings),
        nested_memory=nested_memory(settings),
        provider_label=label,
        tools_unseen=known_dropped(sel),
        accepts_images_fn=lambda model: catalog.accepts_images(model, settings.model.prices),
        await_background=await_background,
        headless=await_background,
    )


async def build(settings: Settings, approver: Approver,
                hooks_in_code: Callable[[Hooks | None], Hooks] | None = None,
                sdk_request: SdkRequest | None = None, files: FileAccess | None = None) -> Built:
    """`hooks_in_code`: wraps the configured hooks with a caller's own (the Agent SDK's callbacks), so the main
    agent and every subagent run both. `sdk_request`: the Agent SDK's control channel (agentcli.sdkio), which
    `"type": "sdk"` MCP servers talk through, also those the SDK declares after the build. `files`: where the file
    tools read and write text (an ACP client's file system); None: the local disk."""
    settings = with_session_setup(settings)
    settings, plugins, plugin_notices = with_plugins(settings)
    settings, approver, dont_ask = sdkparts.dont_ask(settings, approver)
    preset = load_preset(settings)
    if preset is not None and preset.model and not settings.model.name:
        settings = replace(settings, model=replace(settings.model, name=preset.model))
    sel = await select_provider(settings)
    preload_http(sel.config.base_url)
    telemetry = start_telemetry(settings)  # its import overlaps the rest of the assembly
    window_fn, limit = context_window_fn(settings.model.prices, settings, sel), auto_compact_limit(settings)
    from agentcli.assembly.served import provider_label

    probed = await first_use_probe(sel)
    label = await provider_label(sel)  # after the probe, which keeps its answer; the session header keeps it
    if label and "label" not in sel.config.options:  # its errors name the server ("llamacpp"), not the wire
        sel = replace(sel, config=replace(sel.config, options={**sel.config.options, "label": label}))
    opened = open_sink(settings, sel, label)
    try:
        provider = sdkparts.with_fallback(make_provider(sel), settings, sel)
        ctx = tool_context(settings)
        ctx.files = files
        policy = make_policy(settings, ctx, preset, remembered_rules(opened))
        if dont_ask:  # not a preset's or a settings file's default_mode either
            policy.session.mode = "default"
        policy.session.preset = settings.preset or None
        restore_todos(opened, policy.session)
        sandbox_notice = attach_sandbox(settings, ctx, policy.session, preset)
        hooks, hook_warnings = make_hooks(settings, ctx, opened, approver)
        hooks = hooks_in_code(hooks) if hooks_in_code is not None else hooks
    except BaseException:
        opened.close()
        raise
    note = probe_note(probed, opened)
    provider = watch_tools(provider, sel)  # after the first-use probe, which may have told already
    options = await agent_options(settings, sel, preset, window_fn, limit, label=label,
                                  await_background=not getattr(approver, "interactive", True))
    registry = ToolRegistry(sdkparts.without_denied(tool_names(preset, policy.mode, settings.tools), policy))
    opened.notices.extend(sdkparts.attach_structured_output(registry, options, settings))
    if preset is not None:
        opened.notices.extend(unknown_tool_notices(f"preset {preset.name}", resolve_tools(preset.tools)[1]))
    agent = Agent(
        provider=provider, registry=registry, policy=policy,
        approver=approver, ctx=ctx, options=options, sink=opened.sink, history=opened.history, hooks=hooks,
    )
    carry_usage(agent, opened.replay)
    offer_skill = bool(sdkparts.without_denied(["Skill"], policy)) and "Skill" in (settings.tools or ("Skill",))
    attach_extensions(agent.registry, ctx, settings.project_root, plugins, offer_skill)
    opened.notices.extend(plugin_notices)
    sdkparts.bind_fallback(agent)
    opened.notices.extend(hook_warnings)
    publish_web(ctx, policy, settings)
    publish_model(agent, settings)
    if "Task" in agent.registry.enabled:
        from agentcli.assembly.tasks import attach

        opened.notices.extend(attach(agent, settings, sel, approver,
                                     None if settings.session.no_persistence else opened.session_id))
    if telemetry is not None:  # what leaves the machine is redacted of key-shaped strings too (`shapes`)
        agent.observers.append(telemetry[0].bind(options.cost_fn, lambda text: ctx.redact(text, shapes=True)))
        opened.notices.extend(telemetry[1])
    try:
        start_mcp(settings, agent, sdk_request, plugins)
    except BaseException:
        opened.close()
        raise
    if settings.untrusted:
        opened.notices.append(untrusted_notice(settings))
    opened.notices.extend(settings.notices)  # settings read but ignored or unsupported: never silent
    if sandbox_notice:
        opened.notices.append(sandbox_notice)
    return Built(agent, sel, opened, [note] if note else [])


def _sandbox_wrap(settings: Settings, config: Any) -> Callable[..., Any] | None:
    """agentcli.sandbox's one-shot wrapper, when a stdio server is to run confined (loaded only then)."""
    wanted = [s for s in config.servers.values() if s.transport == "stdio"
              and (s.sandbox if s.sandbox is not None else settings.mcp.sandbox)]
    if not wanted:
        return None
    import functools

    from agentcli.sandbox import wrap_command

    return functools.partial(wrap_command, settings)


def start_mcp(settings: Settings, agent: Agent, sdk_request: SdkRequest | None = None,
              plugins: Loaded | None = None) -> None:
    """Configured MCP servers (and enabled plugins' servers) start connecting in the background and feed the
    agent's registry. With none configured nothing of the `mcp` SDK is imported, nor (when no file or flag
    configures any: agentcli.settings.extensions) agentcli.mcp's own configuration reader."""
    if plugins is None and not mcp_configured(settings):
        return
    from agentcli.mcp.config import add_claude_servers, load

    config = load(settings.project_root, settings.mcp.config, settings.mcp.strict_config)
    if not settings.mcp.strict_config:
        add_claude_servers(config, settings.mcp.claude_servers)
    if plugins is not None and not settings.mcp.strict_config:
        from agentcli.plugins.parts import add_servers

        add_servers(config, plugins)
    if settings.setting_sources is not None:  # as Claude Code's: user servers always load, like the login
        config = sdkparts.servers_from(config, ("user", "flag", *settings.setting_sources))
    if not (config.servers or config.untrusted or config.problems):
        return
    attach_mcp(settings, agent, config, sdk_request)


def attach_mcp(settings: Settings, agent: Agent, config: McpConfig,
               sdk_request: SdkRequest | None = None) -> McpManager:
    """An MCP manager for `config`, feeding the agent's registry and connecting in the background (also used
    when the Claude Agent SDK announces its servers after start: agentcli.mcp.control). `sdk_request`: the
    Agent SDK's control channel, which `"type": "sdk"` servers talk through."""
    from agentcli.mcp.manager import McpManager

    options = agent.options
    manager = McpManager(
        config, settings.cwd, grace_s=settings.mcp.grace_s, connect_timeout_s=settings.mcp.connect_timeout_s,
        tool_timeout_s=settings.mcp.tool_timeout_s, budget=settings.mcp.schema_budget,
        window=lambda: options.context_window_fn(options.model),
        wrap=_sandbox_wrap(settings, config), sandbox_all=settings.mcp.sandbox,
    )
    ctx = agent.ctx
    ctx.secrets = tuple(sorted({*ctx.secrets, *(s for c in config.servers.values() for s in c.secrets())},
                               key=len, reverse=True))
    ctx.tool_lookup = agent.registry.lookup
    if sdk_request is not None:
        manager.attach_sdk(sdk_request)
    manager.accepts_images = lambda: agent.accepts_images
    agent.registry.sources.append(manager)
    agent.use_mcp(manager)
    manager.start(settings.mcp.start_delay_s)
    return manager


def _effort(value: str | None) -> Effort | None:
    if value in ("low", "medium", "high"):
        return value  # type: ignore[return-value]
    return None


def thinking_effort(settings: Settings) -> Effort | None:
    """--effort, else what --max-thinking-tokens / --thinking mean in agentcli's effort levels (no thinking
    when disabled or 0; a budget picks the level whose provider budget it is nearest to)."""
    if settings.model.thinking == "disabled" or settings.model.max_thinking_tokens == 0:
        return None
    if settings.model.effort:
        return _effort(settings.model.effort)
    tokens = settings.model.max_thinking_tokens
    if tokens is None:
        return None
    return "low" if tokens <= 4096 else "medium" if tokens <= 16384 else "high"
