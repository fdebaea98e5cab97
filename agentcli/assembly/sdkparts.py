"""Parts of a run that Claude Code's flags choose (the Claude Agent SDK passes them): the exact tool set of
`--tools` and the structured output of `--json-schema`."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agentcli.core.permissions import Approver
from agentcli.llm.request import Provider
from agentcli.tools.registry import ToolRegistry, resolve_tools

if TYPE_CHECKING:
    from agentcli.assembly.selection import Selection
    from agentcli.core.loop import Agent, AgentOptions
    from agentcli.mcp.config import McpConfig
    from agentcli.settings.config import Settings

def exact_tools(names: tuple[str, ...], mode: str) -> list[str]:
    """`--tools`: exactly these built-in tools (plan mode still brings ExitPlanMode, its way out)."""
    found, _ = resolve_tools(names)
    if mode == "plan" and "ExitPlanMode" not in found:
        found.append("ExitPlanMode")
    return found


def unknown_tools_notice(names: tuple[str, ...] | None) -> str | None:
    if not names:
        return None
    _, unknown = resolve_tools(names)
    unknown = [n for n in unknown if n != "Skill"]  # offered by the skills' source when there are skills
    if not unknown:
        return None
    return f"--tools: agentcli has no tool named {', '.join(unknown)}; left out"


def without_denied(names: list[str], policy: Any) -> list[str]:
    """As Claude Code: a tool denied by name alone (`--disallowedTools Write`, a bare deny rule) is not offered
    to the model at all, rather than offered and refused."""
    denied = {r.tool for r in getattr(policy, "rules", ()) if r.behavior == "deny" and r.specifier is None}
    return [n for n in names if n not in denied]


def attach_structured_output(registry: ToolRegistry, options: AgentOptions, settings: Settings) -> list[str]:
    """`--json-schema`: the StructuredOutput tool joins the session's tools (whatever --tools says: it is how
    the answer is given) and the loop will not end the run until it was called with a valid answer. Returns
    the notices about --tools."""
    notice = unknown_tools_notice(settings.tools)
    if settings.json_schema is not None:
        from agentcli.structured import StructuredOutput, StructuredOutputTool

        state = StructuredOutput(settings.json_schema)
        registry.add(StructuredOutputTool(state))
        options.final_output = state
    return [notice] if notice else []


def dont_ask(settings: Settings, approver: Approver) -> tuple[Settings, Approver, bool]:
    """`--permission-mode dontAsk`, as Claude Code's: the default mode's rules, and what no rule allows is
    denied without asking anyone (not even an SDK's can_use_tool)."""
    from agentcli.core.permissions import DontAskGate

    if settings.permissions.mode != "dontAsk":
        return settings, approver, False
    if isinstance(approver, DontAskGate):  # a caller that switches the mode later (agentcli.sdkio) made its own
        approver.set(True)
        return replace(settings, permissions=replace(settings.permissions, mode="default")), approver, True
    settings = replace(settings, permissions=replace(settings.permissions, mode="default"))
    return settings, DontAskGate(approver, on=True), True


def with_fallback(provider: Provider, settings: Settings, sel: Selection) -> Provider:
    """`--fallback-model` (agentcli.assembly.fallback); the provider itself without one."""
    if not settings.model.fallback_model:
        return provider
    from agentcli.assembly import fallback

    return fallback.with_fallback(provider, settings, sel)


def bind_fallback(agent: Agent) -> None:
    if type(agent.provider).__name__ == "FallbackProvider":  # nothing to import when there is none
        from agentcli.assembly import fallback

        fallback.bind(agent)


def servers_from(config: McpConfig, scopes: tuple[str, ...]) -> McpConfig:
    """`--setting-sources`: only the MCP servers of the layers it names (an untrusted project's servers stay
    withheld either way)."""
    from dataclasses import replace

    return replace(config, servers={n: s for n, s in config.servers.items() if s.scope in scopes},
                   untrusted={n: s for n, s in config.untrusted.items() if s.scope in scopes})
