"""An MCP server's tool as an agentcli Tool: `mcp__<server>__<tool>`, the server's schema and annotations.

How far a server's annotations are believed: `readOnlyHint: true` makes the tool read-only (it may run without
asking where reads are allowed, plan mode included, and alongside other reads) only when the server's config
trusts annotations (the default for servers the user configured, never for servers a repository configured),
and only when the tool does not also claim `destructiveHint: true` or `openWorldHint: true` (a tool that reaches
the outside world can carry the conversation's data there). Everything else asks as any other tool would.
Descriptions are capped, names are reduced to the characters every provider accepts.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentcli.mcp.limits import CHARS_PER_TOKEN
from agentcli.tools.base import ToolContext, ToolOutput

if TYPE_CHECKING:
    from agentcli.mcp.connection import Connection

MAX_DESCRIPTION = 2048
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def tool_name(server: str, tool: str, *, unique: bool = False) -> str:
    """`mcp__server__tool`, safe for every provider's tool-name rules (`^[A-Za-z0-9_-]{1,64}$`). A name too long
    for them ends in a digest of the whole instead (two long names sharing their first 55 characters stay two
    tools), as does, with `unique`, a name whose unsafe characters made it another tool's (`a.b` beside `a_b`)."""
    name = f"mcp__{server}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME and not unique:
        return name
    import hashlib

    digest = hashlib.sha256(f"{server}\0{tool}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{name[:MAX_NAME - 9]}_{digest}"


def object_schema(raw: Any) -> dict[str, Any]:
    """The server's input schema when it is an object schema; an empty object schema otherwise."""
    if isinstance(raw, dict) and raw.get("type") == "object":
        return raw
    return {"type": "object", "properties": {}}


def believed_read_only(annotations: Any, trusted: bool) -> bool:
    if not trusted or not isinstance(annotations, dict):
        return False
    return (annotations.get("readOnlyHint") is True and annotations.get("destructiveHint") is not True
            and annotations.get("openWorldHint") is not True)


class McpTool:
    """Implements agentcli.tools.base.Tool over one connection."""

    edits_files = False

    def __init__(self, conn: Connection, info: dict[str, Any], timeout_s: float, max_output_chars: int = 100_000, *,
                 unique: bool = False) -> None:
        self.conn = conn
        self.remote_name = str(info.get("name", ""))
        self.name = tool_name(conn.cfg.name, self.remote_name, unique=unique)
        desc = str(info.get("description") or info.get("title") or "")
        self.description = desc if len(desc) <= MAX_DESCRIPTION else desc[:MAX_DESCRIPTION] + "…"
        self.input_schema = object_schema(info.get("inputSchema"))
        self.annotations: dict[str, Any] = dict(info.get("annotations") or {})
        self.read_only = believed_read_only(self.annotations, conn.cfg.trust_annotations)
        self.destructive = not self.read_only and self.annotations.get("destructiveHint") is not False
        self.timeout_s = conn.cfg.timeout_s or timeout_s
        self.max_output_chars = max_output_chars  # MAX_MCP_OUTPUT_TOKENS (agentcli.mcp.limits)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        from agentcli.mcp.connection import ToolCallError

        try:
            result = await self.conn.call(self.remote_name, args, self.timeout_s)
        except ToolCallError as err:
            return ToolOutput.error(str(err))
        images_ok = ctx.model is not None and ctx.model.accepts_images  # the session's model, asked now
        return result_output(result, self.max_output_chars, images_ok)


def result_output(result: dict[str, Any], limit: int, images_ok: bool) -> ToolOutput:
    """A `tools/call` result for the model: text parts joined; images for models that accept them follow the
    results (`metadata["attachments"]`), described otherwise; embedded resources inlined when they are text."""
    parts: list[str] = []
    images: list[tuple[str, str]] = []
    for item in result.get("content") or []:
        if isinstance(item, dict):
            parts.append(_content_text(item, images, images_ok))
    structured = result.get("structuredContent")
    if structured is not None and not any(p.strip() for p in parts):
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(p for p in parts if p) or "(no output)"
    if len(text) > limit:
        text = (text[:limit] + f"\n… [truncated: the result had {len(text)} characters, more than the "
                f"{limit // CHARS_PER_TOKEN} tokens MAX_MCP_OUTPUT_TOKENS allows]")
    from agentcli.llm.messages import ImageBlock

    meta: dict[str, Any] = {"attachments": [ImageBlock(m, d) for m, d in images]} if images else {}
    return ToolOutput(text, is_error=bool(result.get("isError")), metadata=meta)


def _content_text(item: dict[str, Any], images: list[tuple[str, str]], images_ok: bool) -> str:
    kind = item.get("type")
    if kind == "text":
        return str(item.get("text", ""))
    if kind == "image":
        mime = str(item.get("mimeType", ""))
        if images_ok and mime in IMAGE_TYPES and isinstance(item.get("data"), str):
            images.append((mime, item["data"]))
            return f"[image {len(images)}: {mime}, attached below]"
        return f"[image: {mime} (not shown to this model)]"
    if kind == "audio":
        return f"[audio: {item.get('mimeType', '')} (not supported)]"
    if kind == "resource_link":
        return f"[resource: {item.get('uri', '')} {item.get('name', '')}]".rstrip()
    if kind == "resource":
        res = item.get("resource") or {}
        uri, mime = res.get("uri", ""), str(res.get("mimeType", ""))
        if "text" in res:
            return f"[resource {uri}]\n{res['text']}"
        if images_ok and mime in IMAGE_TYPES and isinstance(res.get("blob"), str):
            images.append((mime, res["blob"]))
            return f"[image {len(images)}: {uri}, attached below]"
        return f"[binary resource {uri} ({mime or 'unknown type'})]"
    return f"[unsupported content: {kind}]"
