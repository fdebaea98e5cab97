"""Did a local server's model really see the tools? A chat template without a place for tools (SmolLM2's) makes
llama.cpp, LM Studio & co. render the prompt without them: the request carried them, the model never read them,
and it can only answer in text. Nothing errors, so nothing would tell the user.

The prompt token count tells. The first request that carried tools and got a real usage report is compared with
its own size estimate: the conversation alone, and the tool definitions. When the tools outweigh the rest the
count alone decides (a tokenizer differs from ours by far less than the tools' weight); otherwise one probe with
and without a tool settles it (agentcli.providers.probe.tools_in_prompt). A dropped verdict is one `Notice`
(code `tools_dropped`) in the event stream, recorded in the probe cache so it is said once per server and model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from agentcli.assembly import selection
from agentcli.core.context import TOOLS_DROPPED
from agentcli.llm.messages import Usage
from agentcli.llm.request import ModelRequest, Provider
from agentcli.llm.stream import Notice, StreamEvent, UsageReport

DROPPED_CODE = TOOLS_DROPPED
ADVICE = ("Use a model whose chat template supports tools (Qwen2.5/Qwen3, Llama 3.1+/3.2, Hermes 3, Mistral Nemo), "
          "or start llama-server with --jinja and a tool-capable --chat-template-file. See README: Local models.")


def prompt_sizes(request: ModelRequest) -> tuple[int, int]:
    """Our estimate of (the conversation without tools, the tool definitions) in tokens."""
    from agentcli.core.tokens import count_tokens, message_tokens

    base = count_tokens(request.system) + sum(message_tokens(m) for m in request.messages)
    tools = count_tokens("\n".join(json.dumps({"name": t.name, "description": t.description,
                                               "parameters": t.input_schema}) for t in request.tools))
    return base, tools


def judge(reported: int, base: int, tools: int) -> bool | None:
    """Were the tools in a prompt the server counted as `reported` tokens? None when the estimate cannot tell:
    the tools must weigh at least twice the rest, so a tokenizer 0.7-1.5× ours still lands on the right side of
    the midpoint between "without tools" and "with tools"."""
    if tools < 2 * max(base, 1):
        return None
    return reported >= base + tools / 2


def dropped_text(count: int, reported: int, base: int, tools: int) -> str:
    return (f"The server's chat template dropped the tools: the request carried {count} tool definitions (~{tools:,} "
            f"tokens), but the prompt counted {reported:,} tokens, about the conversation alone (~{base:,}). The "
            f"model never sees agentcli's tools and can only answer in text. {ADVICE}")


class ToolsSeenCheck:
    """Wraps a local OpenAI-compatible server's provider until one request has told whether tools reach the
    prompt. Events pass through unchanged; the verdict adds at most one Notice, when the reply has ended."""

    def __init__(self, inner: Provider, base_url: str, model: str, api_key: str | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.base_url, self.model, self.api_key = base_url, model, api_key
        self.pending = True

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        check = self.pending and bool(request.tools) and request.model == self.model
        usage: Usage | None = None
        async for ev in self.inner.stream(request):
            yield ev
            if check and isinstance(ev, UsageReport) and not ev.usage.estimated:
                usage = ev.usage
        if usage is not None and self.pending:  # after the stream: a one-slot server is free for the probe
            self.pending = False
            notice = await self._verdict(request, usage)
            if notice is not None:
                yield notice

    async def _verdict(self, request: ModelRequest, usage: Usage) -> Notice | None:
        from agentcli.providers import probe

        reported = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        known = probe.cached(self.base_url, self.model)
        if reported <= 0 or (known is not None and known.tools_in_prompt is not None):
            return None  # (told already: by an agent of this session on the same server, a subagent or its parent)
        base, tools = prompt_sizes(request)
        seen = judge(reported, base, tools)
        if seen is None:
            seen = await probe.tools_in_prompt(self.base_url, self.model, api_key=self.api_key)
        if seen is None:
            return None
        probe.remember_tools_in_prompt(self.base_url, self.model, seen)
        if seen:
            return None
        return Notice("warning", dropped_text(len(request.tools), reported, base, tools), DROPPED_CODE)

    async def aclose(self) -> None:
        await self.inner.aclose()


def known_dropped(sel: selection.Selection) -> bool:
    """Whether this run's local server is known (probe cache: its /props, or an earlier prompt count) to render
    the prompt without the tools, so the context meter leaves them out (agentcli.core.context)."""
    from agentcli.net.http import is_loopback_url

    url = sel.config.base_url
    if sel.config.name != "openai" or not url or not is_loopback_url(url):
        return False
    from agentcli.providers.probecache import cached

    known = cached(url, sel.model)
    return known is not None and (known.tools_in_prompt is False or known.tool_calling == "none")


def watch_tools(provider: Provider, sel: selection.Selection) -> Provider:
    """`provider`, checked once for dropped tools when it talks to a local OpenAI-compatible server whose
    answer is not known yet (the first-use probe or an earlier run may have told already)."""
    from agentcli.net.http import is_loopback_url

    url = sel.config.base_url
    if sel.config.name != "openai" or not url or not is_loopback_url(url):
        return provider
    from agentcli.providers.probecache import cached

    known = cached(url, sel.model)
    if known is not None and (known.tool_calling == "none" or known.tools_in_prompt is not None):
        return provider
    return ToolsSeenCheck(provider, url, sel.model, sel.config.api_key)
