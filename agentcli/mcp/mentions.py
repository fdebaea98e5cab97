"""Resources and prompts of MCP servers, as the user reaches them.

- `@server:uri` in a prompt attaches that resource (`resources/read`), before the prompt, as `@file` does.
- `/mcp__server__prompt arg…` runs a server's prompt (`prompts/get`) and sends what it returns, in every mode
  (`expand_prompt`, through the registry; the REPL's own command uses the same parts).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from agentcli.errors import AgentCliError, UsageError
from agentcli.llm.messages import ContentBlock, ImageBlock, TextBlock
from agentcli.mcp.tool import IMAGE_TYPES

MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*):(\S+)")
MAX_RESOURCE_CHARS = 100_000
TIMEOUT_S = 30.0


class ResourceServer(Protocol):
    """A server whose resources can be read (agentcli.mcp.connection.Connection)."""

    async def read_resource(self, uri: str, timeout_s: float) -> dict[str, Any]: ...


class PromptServer(Protocol):
    """A server whose prompts can be run (agentcli.mcp.connection.Connection)."""

    async def get_prompt(self, name: str, args: dict[str, str], timeout_s: float) -> dict[str, Any]: ...


COMMAND = re.compile(r"/(mcp__\S+)(?:\s+(.*))?", re.S)


def mentions(text: str, servers: set[str]) -> list[tuple[str, str]]:
    """(server, uri) for each `@server:uri` naming a configured server, in order, without repeats."""
    out: list[tuple[str, str]] = []
    for m in MENTION.finditer(text):
        pair = (m.group(1), m.group(2).rstrip(".,;!?)"))
        if pair[0] in servers and pair not in out:
            out.append(pair)
    return out


async def resource_blocks(servers: Mapping[str, ResourceServer], text: str, images_ok: bool) -> list[ContentBlock]:
    """The blocks `@server:uri` mentions in `text` attach; a resource that cannot be read says why."""
    blocks: list[ContentBlock] = []
    for server, uri in mentions(text, set(servers)):
        conn = servers[server]
        try:
            result = await conn.read_resource(uri, TIMEOUT_S)
        except Exception as err:  # the prompt still goes; the model reads why the resource is missing
            blocks.append(TextBlock(f"Could not attach @{server}:{uri}: {type(err).__name__}: {err}"))
            continue
        for item in result.get("contents") or []:
            blocks.append(_content_block(server, uri, item, images_ok))
    return blocks


def _content_block(server: str, uri: str, item: dict[str, Any], images_ok: bool) -> ContentBlock:
    mime = str(item.get("mimeType", ""))
    if isinstance(item.get("text"), str):
        text = item["text"]
        cut = ""
        if len(text) > MAX_RESOURCE_CHARS:
            text, cut = text[:MAX_RESOURCE_CHARS], f"\n[… cut at {MAX_RESOURCE_CHARS} characters]"
        return TextBlock(f"Contents of @{server}:{item.get('uri', uri)} (MCP resource):\n```\n{text}\n```{cut}")
    if images_ok and mime in IMAGE_TYPES and isinstance(item.get("blob"), str):
        return ImageBlock(mime, item["blob"])
    return TextBlock(f"@{server}:{uri} is binary ({mime or 'unknown type'}); not attached.")


def prompt_arguments(prompt: dict[str, Any], text: str) -> dict[str, str]:
    """`/mcp__s__p a b` or `/mcp__s__p key=value …`: positional words fill the declared arguments in order."""
    declared = [str(a.get("name")) for a in prompt.get("arguments") or [] if isinstance(a, dict)]
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    out: dict[str, str] = {}
    positional: list[str] = []
    for w in words:
        key, eq, value = w.partition("=")
        if eq and key in declared:
            out[key] = value
        else:
            positional.append(w)
    free = [d for d in declared if d not in out]
    for name, value in zip(free, positional, strict=False):
        out[name] = value
    if len(positional) > len(free) and free:
        out[free[-1]] = " ".join([out[free[-1]], *positional[len(free):]])
    return out


def missing_arguments(prompt: dict[str, Any], args: dict[str, str]) -> list[str]:
    return [str(a.get("name")) for a in prompt.get("arguments") or []
            if isinstance(a, dict) and a.get("required") and str(a.get("name")) not in args]


def prompt_text(result: dict[str, Any]) -> str:
    """What a `prompts/get` result asks, as one user message (assistant turns quoted as such)."""
    parts: list[str] = []
    for msg in result.get("messages") or []:
        content = msg.get("content") or {}
        if isinstance(content, dict) and content.get("type") == "text":
            text = str(content.get("text", ""))
        elif isinstance(content, dict) and content.get("type") == "resource":
            text = str((content.get("resource") or {}).get("text", ""))
        else:
            continue
        parts.append(text if msg.get("role") == "user" else f"(assistant) {text}")
    return "\n\n".join(p for p in parts if p)


async def expand_prompt(text: str, prompts: Sequence[tuple[str, PromptServer, dict[str, Any]]],
                        state_of: Callable[[str], str | None]) -> str | None:
    """`/mcp__server__prompt args` → the user message the prompt makes; None when `text` names no configured
    server's prompt (it goes to the model as typed). A prompt that cannot run is an error saying why (a missing
    argument, a server not connected, the server's own error), never the literal command sent as a question."""
    m = COMMAND.fullmatch(text.strip())
    if m is None:
        return None
    name, args = m.group(1), m.group(2) or ""
    for full, server, prompt in prompts:
        if full != name:
            continue
        values = prompt_arguments(prompt, args)
        missing = missing_arguments(prompt, values)
        if missing:
            raise UsageError(f"/{name} needs: {', '.join(missing)}", hint=f"/{name} {' '.join(missing).upper()}",
                             code="mcp_prompt")
        try:
            result = await server.get_prompt(str(prompt.get("name")), values, TIMEOUT_S)
        except Exception as err:
            raise AgentCliError(f"/{name} failed: {type(err).__name__}: {err}", code="mcp_prompt") from err
        expanded = prompt_text(result)
        if not expanded:
            raise AgentCliError(f"/{name} returned no text to send", code="mcp_prompt")
        return expanded
    why = state_of(name[5:].split("__", 1)[0])
    if why is None:
        return None
    raise UsageError(f"/{name}: {why}", code="mcp_prompt",
                     hint="`agentcli mcp list` (or /mcp) shows the servers and their state")
