"""agentcli's events → ACP `session/update` notifications (text and thinking chunks, plans from TodoWrite, tool
calls with their kind, locations and diffs, and their updates, agentcli's own notices). Pure mapping: no I/O.

A notice (a setting ignored, a sandbox that cannot confine, an MCP server or a hook that failed, a tool dropped) is
an `agent_message_chunk`, as codex-acp forwards Codex's warnings: ACP has no update of its own for it, a thought
is folded away (and reads as the model's), and a message is what an editor shows. It is a quoted paragraph
prefixed `agentcli:` (`⚠ agentcli:` for a warning), so it does not read as the model's words, and its `_meta`
(`{"agentcli": {"notice": level, "code": …}}`) lets a client that knows it show it otherwise. A subagent's notice
goes the same way, marked `agentcli (subagent NAME):`, its `_meta` adding `subagent` and the Task call's
`toolCallId`; the rest of a subagent's work shows as its Task call's result."""

from __future__ import annotations

from typing import Any, assert_never

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from agentcli.core import events as ev
from agentcli.core.events import AgentEvent, ToolFinished
from agentcli.llm.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

Update = (AgentMessageChunk | AgentThoughtChunk | ToolCallStart | ToolCallProgress | AgentPlanUpdate
          | UserMessageChunk)

# ACP's tool kinds (read, edit, delete, move, search, execute, think, fetch, other) for agentcli's tools.
KINDS: dict[str, str] = {
    "Read": "read", "NotebookRead": "read", "LS": "read",
    "Write": "edit", "Edit": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
    "Grep": "search", "Glob": "search", "WebSearch": "search", "ToolSearch": "search",
    "Bash": "execute", "BashOutput": "execute", "KillShell": "execute",
    "WebFetch": "fetch", "TodoWrite": "think", "Task": "think", "ExitPlanMode": "think",
}
_PATH_KEYS = ("file_path", "notebook_path", "path")


def kind_of(name: str) -> str:
    return KINDS.get(name, "other")


def locations(args: dict[str, Any]) -> list[ToolCallLocation]:
    """The files a call touches (ACP clients follow them in the editor)."""
    found = [args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)]
    return [ToolCallLocation(path=p) for p in found[:1]]


def title(name: str, args: dict[str, Any]) -> str:
    for key in ("command", "file_path", "path", "pattern", "url", "description"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return f"{name}: {value.splitlines()[0][:120]}"
    return name


def diffs(name: str, args: dict[str, Any]) -> list[Any]:
    """Edit and Write as ACP diffs (what the editor shows before and after the call)."""
    path = args.get("file_path")
    if not isinstance(path, str):
        return []
    if name == "Write" and isinstance(args.get("content"), str):
        return [helpers.tool_diff_content(path, args["content"])]
    if name == "Edit" and isinstance(args.get("new_string"), str):
        return [helpers.tool_diff_content(path, args["new_string"], str(args.get("old_string") or ""))]
    return []


def tool_start(tool_use_id: str, name: str, args: dict[str, Any]) -> ToolCallStart:
    return helpers.start_tool_call(tool_use_id, title(name, args), kind=kind_of(name),  # type: ignore[arg-type]
                                   status="pending", locations=locations(args), raw_input=args,
                                   content=diffs(name, args) or None)


def updates_for(event: AgentEvent) -> list[Update]:
    """The updates one event makes (many make none: they are the driver's or the result's business). Exhaustive,
    so a new event is a type error here, not a silent drop."""
    match event:
        case ev.TextDelta(text=text) | ev.ThinkingDelta(text=text) if not text:
            return []
        case ev.TextDelta(text=text):
            return [helpers.update_agent_message_text(text)]
        case ev.ThinkingDelta(text=text):
            return [helpers.update_agent_thought_text(text)]
        case ev.AssistantMessage(message=message):  # the calls it asks for, complete, before any permission question
            return [tool_start(b.id, b.name, dict(b.input)) for b in message.content if isinstance(b, ToolUseBlock)]
        case ev.ToolStarted(tool_use_id=tool_use_id):
            return [helpers.update_tool_call(tool_use_id, status="in_progress")]
        case ev.ToolFinished():
            text = event.display or _result_text(event)
            return [helpers.update_tool_call(
                event.tool_use_id, status="failed" if event.result.is_error else "completed",
                content=[helpers.tool_content(helpers.text_block(text))] if text else None,
                raw_output=_result_text(event))]
        case ev.Notice(level=level, text=text, code=code):
            return [notice_update(level, text, code)]
        case ev.TodosUpdated(todos=todos):
            return [helpers.update_plan([helpers.plan_entry(t.content, status=_status(t.status))  # type: ignore[arg-type]
                                         for t in todos])]
        case (ev.SessionStarted() | ev.TurnStarted() | ev.PermissionDecision() | ev.ToolResultsMessage()
              | ev.CompactionStarted() | ev.CompactBoundary() | ev.SessionChanged() | ev.HookStarted()
              | ev.HookFinished() | ev.RunFinished() | ev.ThinkingSignature() | ev.RedactedThinking()
              | ev.ToolCallStart() | ev.ToolCallDelta() | ev.ToolCallEnd() | ev.UsageReport() | ev.ApiRetry()
              | ev.MessageStop() | ev.WebSearchResults()):
            return []  # the driver's, the result's (the prompt's stop reason) or the session file's business
        case ev.SubagentEvent():
            agent, tool_use_id, inner = event.innermost()
            if isinstance(inner, ev.Notice):  # never silent, wherever it happened
                return [notice_update(inner.level, inner.text, inner.code, subagent=(agent, tool_use_id))]
            return []  # else a subagent shows as its Task call's result, as in the REPL
        case _:
            assert_never(event)


def notice_update(level: str, text: str, code: str | None = None, *,
                  subagent: tuple[str, str] | None = None) -> AgentMessageChunk:
    """One of agentcli's notices as the editor shows it (the module's docstring says why this form). `subagent`:
    (its name, its Task call's id) when a subagent gave it: marked as the subagent's, `_meta` naming both."""
    mark = "⚠ agentcli" if level == "warning" else "agentcli"
    meta: dict[str, Any] = {"notice": level, **({"code": code} if code else {})}
    if subagent is not None:
        mark += f" (subagent {subagent[0]})"
        meta.update(subagent=subagent[0], toolCallId=subagent[1])
    quoted = "\n> ".join(text.strip().splitlines() or [""])
    chunk = helpers.update_agent_message_text(f"\n\n> {mark}: {quoted}\n\n")
    return chunk.model_copy(update={"field_meta": {"agentcli": meta}})


def _status(status: str) -> str:
    return status if status in ("pending", "in_progress", "completed") else "pending"


def _result_text(event: ToolFinished) -> str:
    return event.result.content


def history_updates(messages: list[Message]) -> list[Update]:
    """A loaded session's transcript replayed as updates (ACP's `session/load` contract): user and agent text,
    thinking, and each tool call (with its final status) and, where it was recorded, its result."""
    failed = {b.tool_use_id: b.is_error for m in messages for b in m.content if isinstance(b, ToolResultBlock)}
    out: list[Update] = []
    for msg in messages:
        for block in msg.content:
            if isinstance(block, TextBlock) and block.text:
                out.append(helpers.update_user_message_text(block.text) if msg.role == "user"
                           else helpers.update_agent_message_text(block.text))
            elif isinstance(block, ThinkingBlock) and block.thinking:
                out.append(helpers.update_agent_thought_text(block.thinking))
            elif isinstance(block, ToolUseBlock):
                start = tool_start(block.id, block.name, dict(block.input))
                out.append(start.model_copy(update={"status": "failed" if failed.get(block.id) else "completed"}))
            elif isinstance(block, ToolResultBlock):
                out.append(helpers.update_tool_call(
                    block.tool_use_id, status="failed" if block.is_error else "completed",
                    content=[helpers.tool_content(helpers.text_block(block.content))] if block.content else None,
                    raw_output=block.content))
    return out
