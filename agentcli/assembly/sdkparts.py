"""Parts of a run that Claude Code's flags choose (the Claude Agent SDK passes them): the exact tool set of
`--tools` and the structured output of `--json-schema`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.tools.registry import BUILTIN_TOOLS, SUBAGENT_TOOLS, ToolRegistry

if TYPE_CHECKING:
    from agentcli.core.loop import AgentOptions
    from agentcli.mcp.config import McpConfig

# Claude Code's names for tools agentcli has under another name (or as a family).
ALIASES: dict[str, tuple[str, ...]] = {
    "Agent": SUBAGENT_TOOLS,
    "Task": SUBAGENT_TOOLS,
    "KillBash": ("KillShell",),
}


def resolve_tools(names: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(agentcli's tool names, the names it has no tool for), in the order given."""
    found: list[str] = []
    unknown: list[str] = []
    for name in names:
        if name in ALIASES:
            found.extend(ALIASES[name])
        elif name in BUILTIN_TOOLS:
            found.append(name)
        else:
            unknown.append(name)
    return list(dict.fromkeys(found)), unknown


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
    if not unknown:
        return None
    return f"--tools: agentcli has no tool named {', '.join(unknown)}; left out"


def without_denied(names: list[str], policy: Any) -> list[str]:
    """As Claude Code: a tool denied by name alone (`--disallowedTools Write`, a bare deny rule) is not offered
    to the model at all, rather than offered and refused."""
    denied = {r.tool for r in getattr(policy, "rules", ()) if r.behavior == "deny" and r.specifier is None}
    return [n for n in names if n not in denied]


def attach_structured_output(registry: ToolRegistry, options: AgentOptions, schema: dict[str, Any]) -> None:
    """`--json-schema`: the StructuredOutput tool joins the session's tools (whatever --tools says: it is how
    the answer is given) and the loop will not end the run until it was called with a valid answer."""
    from agentcli.structured import StructuredOutput, StructuredOutputTool

    state = StructuredOutput(schema)
    registry.add(StructuredOutputTool(state))
    options.final_output = state


def servers_from(config: McpConfig, scopes: tuple[str, ...]) -> McpConfig:
    """`--setting-sources`: only the MCP servers of the layers it names (an untrusted project's servers stay
    withheld either way)."""
    from dataclasses import replace

    return replace(config, servers={n: s for n, s in config.servers.items() if s.scope in scopes},
                   untrusted={n: s for n, s in config.untrusted.items() if s.scope in scopes})
