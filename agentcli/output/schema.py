"""The stable external JSON of `-p --output-format json|stream-json` (documented in docs/output-format.md).

Shapes follow Claude Code's `-p` contract so existing scripts work; internal events are mapped here and only
here, so internals can change without breaking users. Bump SCHEMA_VERSION on any incompatible change.
"""

from __future__ import annotations

import os
from typing import Any

from agentcli.core.events import CompactBoundary, ModelUsage, RunResult, SessionChanged, SessionStarted, TodoItem
from agentcli.ids import new_uuid
from agentcli.llm.messages import Message, Usage
from agentcli.version import __version__

SCHEMA_VERSION = 1
# The Claude Code release whose stream-json and control protocol these lines follow (the one bundled with
# claude-agent-sdk 0.2.187); the SDK reads it from system/init to know what the engine speaks.
CLAUDE_CODE_PROTOCOL = "2.1.330"


def init_line(ev: SessionStarted) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "init",
        "session_id": ev.session_id,
        "cwd": ev.cwd,
        "model": ev.model,
        "provider": ev.provider,
        "tools": list(ev.tools),
        "permissionMode": ev.permission_mode,
        "mcp_servers": [{"name": name, "status": status} for name, status in ev.mcp_servers],
        "slash_commands": list(ev.slash_commands),
        "skills": list(ev.skills),
        "plugins": [{"name": name, "path": path} for name, path in ev.plugins],
        "agents": list(ev.agents),
        "output_style": "default",
        "apiKeySource": "none",
        "claude_code_version": CLAUDE_CODE_PROTOCOL,
        "agentcli_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "uuid": new_uuid(),
    }


def message_line(
    msg: Message, session_id: str, *, model: str | None = None, usage: Usage | None = None,
    stop_reason: str | None = None, parent_tool_use_id: str | None = None, uuid: str | None = None,
    message_id: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = msg.to_dict()
    if msg.role == "assistant":
        body = {
            "id": message_id or new_message_id(),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [_sdk_block(b) for b in body["content"]],
            "stop_reason": stop_reason,
            "usage": usage.to_dict() if usage else None,
        }
    return {
        "type": msg.role,
        "message": body,
        "parent_tool_use_id": parent_tool_use_id,
        "session_id": session_id,
        "uuid": uuid or new_uuid(),
    }


def new_message_id() -> str:
    return f"msg_{os.urandom(12).hex()}"


def _sdk_block(block: dict[str, Any]) -> dict[str, Any]:
    """The SDK's parser requires `signature` on every thinking block (other providers' thinking has none)."""
    if block.get("type") == "thinking" and "signature" not in block:
        return {**block, "signature": ""}
    return block


def compact_boundary_line(ev: CompactBoundary, session_id: str) -> dict[str, Any]:
    """Claude Code's `compact_boundary` line; `compact_metadata` adds our `post_tokens`, `reason`, `phases`."""
    return {
        "type": "system",
        "subtype": "compact_boundary",
        "session_id": session_id,
        "uuid": new_uuid(),
        "compact_metadata": {
            "trigger": ev.trigger,
            "pre_tokens": ev.pre_tokens,
            "post_tokens": ev.post_tokens,
            "reason": ev.reason,
            "phases": list(ev.phases),
            "pruned_results": ev.pruned,
            "dropped_messages": ev.dropped,
        },
    }


def todos_line(todos: tuple[TodoItem, ...], session_id: str) -> dict[str, Any]:
    """The agent's todo list after a TodoWrite (the items in TodoWrite's own argument shape)."""
    return {
        "type": "system",
        "subtype": "todos",
        "todos": [{"content": t.content, "status": t.status, "activeForm": t.active_form} for t in todos],
        "session_id": session_id,
        "uuid": new_uuid(),
    }


def session_changed_line(ev: SessionChanged, session_id: str) -> dict[str, Any]:
    """The session's permission mode, model or preset changed (`what`); the line carries the state after the
    change, named as `init` names it. Claude Code has no such line: a `system` subtype of agentcli's own, which
    the Agent SDK hands over as a plain SystemMessage."""
    return {
        "type": "system",
        "subtype": "session_changed",
        "what": ev.what,
        "permissionMode": ev.mode,
        "model": ev.model,
        "preset": ev.preset,
        "session_id": session_id,
        "uuid": new_uuid(),
    }


def _model_usage(mu: ModelUsage) -> dict[str, Any]:
    u = mu.usage
    return {
        "inputTokens": u.input_tokens,
        "outputTokens": u.output_tokens,
        "cacheReadInputTokens": u.cache_read_tokens,
        "cacheCreationInputTokens": u.cache_write_tokens,
        "reasoningTokens": u.reasoning_tokens,
        "costUSD": round(mu.cost_usd, 6),
        "contextWindow": mu.context_window,
        "estimated": u.estimated,
    }


def result_line(r: RunResult) -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": "result",
        "subtype": r.subtype,
        "is_error": r.is_error,
        "duration_ms": r.duration_ms,
        "duration_api_ms": r.duration_api_ms,
        "num_turns": r.num_turns,
        "result": r.result,
        "session_id": r.session_id,
        "total_cost_usd": round(r.total_cost_usd, 6),
        "usage": r.usage.to_dict(),
        "modelUsage": {m: _model_usage(mu) for m, mu in r.model_usage.items()},
        "permission_denials": list(r.permission_denials),
        "uuid": new_uuid(),
    }
    if r.structured_output is not None:
        line["structured_output"] = r.structured_output
    if r.error_code is not None:
        line["error"] = {"code": r.error_code, "message": r.error_message}
        line["errors"] = [r.error_message or r.error_code]  # where the Agent SDK reads an error result's text
    return line

