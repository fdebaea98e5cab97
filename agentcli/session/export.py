"""Exporting a session's active branch as Markdown or JSON."""

from __future__ import annotations

import json
from typing import Any

from agentcli.llm.messages import (
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentcli.session.reader import LoadedSession, message_records


def to_json(loaded: LoadedSession) -> str:
    body: dict[str, Any] = {
        "provider": loaded.header.get("provider_label") or loaded.header.get("provider", ""),  # as -p's init line
        "session": loaded.header,
        "messages": [m.to_dict() for _, m in message_records(loaded.chain)],
        "records": loaded.chain,
    }
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def to_markdown(loaded: LoadedSession) -> str:
    h = loaded.header
    title = h.get("name") or h.get("title") or loaded.session_id
    out = [f"# {title}", "", f"- session: `{loaded.session_id}`", f"- created: {h.get('created', '')}",
           f"- model: {h.get('provider_label') or h.get('provider', '')}/{h.get('model', '')}",
           f"- cwd: `{h.get('cwd', '')}`"]
    if h.get("parent_session"):
        out.append(f"- forked from `{h['parent_session']}` at record `{h.get('fork_record')}`")
    out.append("")
    for rec, msg in message_records(loaded.chain):
        out += _message_md(msg, str(rec.get("id", "")))
    return "\n".join(out).rstrip() + "\n"


def _message_md(msg: Message, rid: str) -> list[str]:
    only_results = all(isinstance(b, ToolResultBlock) for b in msg.content)
    heading = "Tool results" if only_results else msg.role.capitalize()
    out = [f"## {heading} <!-- {rid} -->", ""]
    for b in msg.content:
        match b:
            case TextBlock(text):
                out += [text, ""]
            case ThinkingBlock(thinking, _, _):
                out += ["<details><summary>thinking</summary>", "", thinking, "", "</details>", ""]
            case RedactedThinkingBlock():
                out += ["*(redacted thinking)*", ""]
            case ToolUseBlock(id_, name, input_, raw):
                args = raw if raw is not None else json.dumps(input_, ensure_ascii=False, indent=2)
                out += [f"**{name}** `{id_}`", "", _fence(args, "json"), ""]
            case ToolResultBlock(tool_use_id, content, is_error):
                label = "error" if is_error else "result"
                out += [f"{label} for `{tool_use_id}`:", "", _fence(content, ""), ""]
            case ImageBlock(media_type, _):
                out += [f"*(image: {media_type})*", ""]
    return out


def _fence(text: str, lang: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text}\n{ticks}"
