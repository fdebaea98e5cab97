"""One model request of a turn: compacted first when it would pass the threshold, compacted and retried once
when the provider says the prompt is too long, streamed into a `MessageBuilder` with every event passed on, and,
when the stream breaks or is cancelled, what arrived kept and what it cost counted."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any

from agentcli.core.assemble import MessageBuilder
from agentcli.core.events import AgentEvent, AssistantMessage, Notice
from agentcli.core.interrupts import partial_message
from agentcli.core.runstate import RunState
from agentcli.core.seams import Requesting
from agentcli.core.tokens import estimate_usage, rough_usage
from agentcli.errors import ContextOverflowError
from agentcli.llm.messages import ToolSpec, Usage, merge_consecutive
from agentcli.llm.request import ModelRequest


async def request(agent: Requesting, box: list[MessageBuilder], tools: list[Any], st: RunState
                  ) -> AsyncGenerator[AgentEvent, None]:
    """One model request; its builder is the last in `box`. A "prompt too long" answer before any output
    compacts the history and retries the same turn once; a second one ends the run (never a loop). A request
    that would pass the compaction threshold is compacted first."""
    threshold = agent.compact_limit()
    compacted = False
    if threshold is not None and len(agent.messages) > 1 and agent.context_tokens() > threshold:
        async for ev in _compact(agent, "threshold"):
            yield ev
        compacted = True
    window = agent.window()
    if window is not None and agent.context_tokens() > window:  # known not to fit: never sent to fail
        if not compacted and len(agent.messages) > 1:
            async for ev in _compact(agent, "overflow"):
                yield ev
        if agent.context_tokens() > window:
            raise too_long(agent, f"the next request (~{agent.context_tokens():,} tokens) does not fit the "
                                  f"context window of {_server(agent)} ({window:,} tokens); it was not sent")
    for attempt in (1, 2):
        builder = MessageBuilder(provider=agent.options.provider_name)
        box.append(builder)
        try:
            # aclosing: if our consumer closes us mid-stream, the turn's stream is closed now, keeping its text.
            async with aclosing(_stream(agent, builder, tools, st)) as stream:
                async for ev in stream:
                    yield ev
            return
        except ContextOverflowError as err:
            if builder.output_seen:
                raise
            if attempt == 2:
                raise too_long(agent, f"the conversation is still too long for {_server(agent)} after "
                                      f"compacting it (~{agent.context_tokens():,} tokens): {err.message}",
                               err.status) from err
            async for ev in _compact(agent, "overflow"):
                yield ev


def _compact(agent: Requesting, reason: str) -> AsyncIterator[AgentEvent]:
    from agentcli.core import compactor  # imported at the first compaction: most runs never compact

    return compactor.compact(agent, "auto", reason)


def _server(agent: Requesting) -> str:
    """The model and the server as the session names them ("qwen.gguf on llamacpp"), not the wire format."""
    options = agent.options
    return f"{options.model} on {options.provider_label or options.provider_name}"


def too_long(agent: Requesting, message: str, status: int | None = None) -> ContextOverflowError:
    """The error for a conversation too long for the model, with what the user can do where they are: the
    REPL's commands interactively; flags and the server's own window under `-p`, where no /clear exists."""
    options = agent.options
    server = "start the server with a larger context (llama-server -c)" if options.provider_label == "llamacpp" \
        else "use a model with a larger context window"
    if options.headless:
        hint = f"send a smaller prompt, lower --max-turns, or {server}"
    else:
        hint = f"/compact or /clear, send a smaller prompt, or {server}"
    return ContextOverflowError(message, hint=hint, status=status)


async def _stream(agent: Requesting, builder: MessageBuilder, tools: list[Any], st: RunState
                  ) -> AsyncGenerator[AgentEvent, None]:
    options = agent.options
    req = ModelRequest(
        model=options.model,
        system=options.system_prompt,
        messages=merge_consecutive(agent.messages),
        tools=tuple(ToolSpec(t.name, t.description, t.input_schema) for t in tools),
        max_tokens=options.max_tokens,
        effort=options.effort,
    )
    t0 = time.monotonic()
    stream = agent.provider.stream(req)
    try:
        async for ev in stream:
            builder.feed(ev)
            if isinstance(ev, Notice):
                agent.meter.saw(ev.code)
            yield ev
    except BaseException as exc:
        _account_partial(agent, builder, req, st)
        partial = partial_message(builder)
        if partial is not None:
            model = agent.options.model
            agent.append(partial, partial=True, model=model, usage=builder.usage.to_dict())
            if not isinstance(exc, GeneratorExit):  # a closing generator may not yield
                yield AssistantMessage(partial, builder.usage, model, "error", partial=True)
        raise
    else:
        if builder.usage.estimated or builder.usage == Usage():
            builder.usage = estimate_usage(req, builder.message())
    finally:
        st.api_s += time.monotonic() - t0
        # A cancelled or failed turn closes the provider's connection now, not when the GC finds it.
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()


def _account_partial(agent: Requesting, builder: MessageBuilder, req: ModelRequest, st: RunState) -> None:
    """A stream stopped by Esc or an error still cost tokens once output came: count what the provider
    reported, else an estimate, so /cost and the status line do not show 0."""
    if not builder.output_seen:
        return
    if builder.usage.estimated or builder.usage == Usage():
        builder.usage = rough_usage(req, builder.message(complete_calls_only=True))
    agent.account(st, builder.usage)
