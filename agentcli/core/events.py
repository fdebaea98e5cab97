"""Typed events: pure data, the only thing that crosses the centre of agentcli.

Two layers:
- `StreamEvent` (agentcli.llm.stream, re-exported here): what a provider adapter yields while one model request
  streams.
- `AgentEvent`: what `Agent.run()` yields to front ends; a superset that adds turns, tools, permissions and the
  final result. Front ends `match` on these exhaustively (ending in `assert_never`).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, TypeAlias

from agentcli.llm.messages import Message, ToolResultBlock, Usage
from agentcli.llm.stream import (  # re-exported (see __all__): every stream event is also an agent event
    ApiRetry,
    MessageStop,
    Notice,
    RedactedThinking,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
    WebSearchResults,
)
from agentcli.record import record

# ---- agent events -----------------------------------------------------------------------------------------


@record
class SessionStarted:
    """First event of every run."""

    session_id: str
    cwd: str
    model: str
    provider: str
    tools: tuple[str, ...]
    permission_mode: str
    mcp_servers: tuple[tuple[str, str], ...] = ()  # (name, status): connected | pending | failed | untrusted
    agents: tuple[str, ...] = ()  # the subagent types the Task tool can start
    skills: tuple[str, ...] = ()  # the skills the Skill tool can load (agentcli.skills)
    plugins: tuple[tuple[str, str], ...] = ()  # (name, path) of each enabled plugin (agentcli.plugins)
    slash_commands: tuple[str, ...] = ()  # custom commands and user-invocable skills, without the slash


@record
class TurnStarted:
    """A model request is about to be sent (turn counts from 1)."""

    turn: int


@record
class AssistantMessage:
    """A complete assistant message, merged from the stream. `partial` when the stream broke or was cancelled."""

    message: Message
    usage: Usage
    model: str
    stop_reason: StopReason
    partial: bool = False


@record
class PermissionDecision:
    """How a tool call was decided. `by`: rule | mode | user | hook | default."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    behavior: Literal["allow", "deny"]
    by: str
    rule: str | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None


@record
class ToolStarted:
    tool_use_id: str
    name: str
    input: dict[str, Any]


@record
class ToolFinished:
    """A tool call's outcome. `result` is what the model reads; `display` what a person should see
    (e.g. a diff), when different."""

    tool_use_id: str
    name: str
    input: dict[str, Any]
    result: ToolResultBlock
    duration_ms: int
    display: str | None = None


@record
class ToolResultsMessage:
    """The user-role message carrying every tool result of a turn, as appended to the transcript."""

    message: Message


@record
class CompactionStarted:
    """Compaction begins. `trigger`: auto | manual (Claude Code's words); `reason`: threshold | overflow |
    manual; `pre_tokens`: the estimated size of the next request before compaction."""

    trigger: Literal["auto", "manual"]
    reason: str
    pre_tokens: int


@record
class CompactBoundary:
    """Compaction finished and was recorded: the conversation now continues from its result.
    `phases` ran in order (prune, summarise, truncate); `post_tokens` is the new request size estimate."""

    trigger: Literal["auto", "manual"]
    reason: str
    pre_tokens: int
    post_tokens: int
    phases: tuple[str, ...]
    pruned: int = 0
    dropped: int = 0


@record
class TodoItem:
    """One TodoWrite entry (Claude Code's shape). `status`: pending | in_progress | completed."""

    content: str
    status: str
    active_form: str


@record
class TodosUpdated:
    """The agent's todo list changed (TodoWrite ran, or it was restored on resume)."""

    todos: tuple[TodoItem, ...]


@record
class SessionChanged:
    """The session's permission mode, model or preset changed (`what`), through the agent's command API or an
    approved plan; it carries the state after the change, for whoever shows or records it. Emitted by the run
    that made the change, or, for a change between runs (a front end's /model, /preset, Shift-Tab), first thing
    in the next run."""

    what: Literal["mode", "model", "preset"]
    mode: str
    model: str
    preset: str | None = None


@record
class HookStarted:
    """A hook command is about to run. `name` is `Event:target` (e.g. `PreToolUse:Bash`), as Claude Code names it."""

    hook_id: str
    event: str
    name: str
    command: str


@record
class HookFinished:
    """A hook command ended. `outcome`: success | blocking (exit 2 or a blocking decision) | error (another exit
    status, or output that is not valid) | timeout | cancelled."""

    hook_id: str
    event: str
    name: str
    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    outcome: str
    duration_ms: int


@record
class SubagentEvent:
    """An event of a subagent (Task tool), forwarded into its parent's stream while the Task call runs.
    `parent_tool_use_id` is the Task call's id; `event` the child's own event (possibly another SubagentEvent)."""

    parent_tool_use_id: str
    agent_name: str
    event: AgentEvent

    def innermost(self) -> tuple[str, str, AgentEvent]:
        """The event the subagent that made it gave, unwrapped: that subagent's path (`reviewer › explore` for
        a child's child), the id of the Task call that runs it, and the event."""
        agent, tool_use_id, inner = self.agent_name, self.parent_tool_use_id, self.event
        while isinstance(inner, SubagentEvent):
            agent, tool_use_id, inner = f"{agent} › {inner.agent_name}", inner.parent_tool_use_id, inner.event
        return agent, tool_use_id, inner


@record
class ModelUsage:
    """Per-model totals for the result."""

    usage: Usage
    cost_usd: float
    context_window: int | None = None


@record
class RunResult:
    """The outcome of a run. `subtype`: success | error_max_turns | error_during_execution | error_max_budget_usd
    | error_max_structured_output_retries."""

    subtype: str
    is_error: bool
    result: str
    session_id: str
    num_turns: int
    duration_ms: int
    duration_api_ms: int
    total_cost_usd: float
    usage: Usage
    model_usage: dict[str, ModelUsage] = field(default_factory=dict)
    permission_denials: tuple[dict[str, Any], ...] = ()
    error_code: str | None = None
    error_message: str | None = None
    exit_status: int = 0
    structured_output: Any = None  # --json-schema: the validated final answer


@record
class RunFinished:
    """Last event of every run, also when it fails."""

    result: RunResult


AgentEvent: TypeAlias = (
    StreamEvent
    | SessionStarted
    | TurnStarted
    | AssistantMessage
    | PermissionDecision
    | ToolStarted
    | ToolFinished
    | ToolResultsMessage
    | CompactionStarted
    | CompactBoundary
    | TodosUpdated
    | SessionChanged
    | HookStarted
    | HookFinished
    | SubagentEvent
    | RunFinished
)

__all__ = [
    "AgentEvent",
    "ApiRetry",
    "AssistantMessage",
    "HookFinished",
    "HookStarted",
    "MessageStop",
    "ModelUsage",
    "Notice",
    "PermissionDecision",
    "RedactedThinking",
    "RunFinished",
    "RunResult",
    "SessionChanged",
    "SessionStarted",
    "StopReason",
    "StreamEvent",
    "SubagentEvent",
    "TextDelta",
    "ThinkingDelta",
    "ThinkingSignature",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolFinished",
    "ToolResultsMessage",
    "ToolStarted",
    "TurnStarted",
    "UsageReport",
    "WebSearchResults",
]
