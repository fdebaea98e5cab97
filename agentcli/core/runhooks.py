"""The hooks a run fires around the model: SessionStart (on an agent's first run) and UserPromptSubmit before
the prompt is sent, Stop (SubagentStop for a Task child) when the model stops asking for tools. Their events are
yielded; their combined outcome goes to the list the caller passes."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentcli.core.events import AgentEvent
from agentcli.core.hooks import HookOutcome, fire
from agentcli.core.runstate import RunState
from agentcli.core.seams import HookSite
from agentcli.llm.messages import Message, TextBlock

MAX_STOP_HOOK_CONTINUES = 8  # a Stop hook that always blocks must not keep a run going for ever


async def prompt_hooks(agent: HookSite, source: str | None, prompt: Message, out: list[HookOutcome]
                       ) -> AsyncIterator[AgentEvent]:
    """SessionStart (when `source` says how the session began) and UserPromptSubmit."""
    outcomes: list[HookOutcome] = []
    if source is not None:
        async for ev in fire(agent.hooks, agent.sink, "SessionStart", source, agent.hook_payload(source=source)):
            if isinstance(ev, HookOutcome):
                outcomes.append(ev)
            else:
                yield ev
    async for ev in fire(agent.hooks, agent.sink, "UserPromptSubmit", None, agent.hook_payload(prompt=prompt.text)):
        if isinstance(ev, HookOutcome):
            outcomes.append(ev)
        else:
            yield ev
    first, last = outcomes[0], outcomes[-1]
    last.context = [*first.context, *last.context] if first is not last else last.context
    out.append(last)


async def stop_hooks(agent: HookSite, st: RunState, out: list[HookOutcome]) -> AsyncIterator[AgentEvent]:
    payload = agent.hook_payload(stop_hook_active=st.stop_hook_continues > 0)
    event = "SubagentStop" if agent.options.subagent else "Stop"
    async for ev in fire(agent.hooks, agent.sink, event, None, payload):
        if isinstance(ev, HookOutcome):
            out.append(ev)
        else:
            yield ev


def with_context(message: Message, event: str, context: list[str]) -> Message:
    """The prompt plus what its hooks added for the model, as a separate text block the model can tell apart."""
    if not context:
        return message
    block = TextBlock(f"<hook_context event=\"{event}\">\n" + "\n\n".join(context) + "\n</hook_context>")
    return Message(message.role, (*message.content, block))


def continues(outcome: HookOutcome, st: RunState) -> bool:
    """A Stop hook that blocks with a reason makes the agent go on, a bounded number of times per run."""
    if not outcome.block or not outcome.feedback or st.stop_hook_continues >= MAX_STOP_HOOK_CONTINUES:
        return False
    st.stop_hook_continues += 1
    return True
