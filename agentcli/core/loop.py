"""The agent loop: one async generator. Ask the model, stream its events out, run its tool calls, repeat —
until the model stops, a guard trips (turns, budget, tool calls per turn) or the caller cancels.

Every message goes to the session sink as it happens; the transcript is kept valid for every provider
(each tool call answered by exactly one result) also when a run is cancelled or a stream breaks.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentcli.core import compactor
from agentcli.core.assemble import MessageBuilder
from agentcli.core.context import ContextMeter
from agentcli.core.events import (
    AgentEvent,
    AssistantMessage,
    ModelUsage,
    Notice,
    RunFinished,
    RunResult,
    SessionStarted,
    SubagentEvent,
    TodoItem,
    ToolResultsMessage,
    TurnStarted,
)
from agentcli.core.final import FinalOutput
from agentcli.core.hooks import HookOutcome, Hooks, fire
from agentcli.core.permissions import PERMISSION_MODES, Approver, Policy
from agentcli.core.sink import NullSink, SessionSink
from agentcli.core.tokens import estimate_usage, rough_usage
from agentcli.core.toolrun import TODOS_KEY, ToolRunner
from agentcli.errors import AgentCliError, ContextOverflowError, LimitReachedError, PermissionDeniedError, UsageError
from agentcli.llm.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
    merge_consecutive,
)
from agentcli.llm.request import Effort, ModelRequest, Provider
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry

INTERRUPTED = "[Request interrupted by user]"
MAX_STOP_HOOK_CONTINUES = 8  # a Stop hook that always blocks must not keep a run going for ever


class NestedMemory(Protocol):
    """Memory files in subdirectories, picked up as the agent works there (agentcli.settings.memory)."""

    def __call__(self, paths: list[str], /) -> list[str]:
        """Texts of memory files newly applying to these tool paths."""
        ...

    def texts(self) -> list[str]:
        """Every nested memory text loaded so far (re-injected after a compaction)."""
        ...


@dataclass(slots=True)
class AgentOptions:
    model: str
    provider_name: str
    system_prompt: str = ""
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tool_calls_per_turn: int = 50
    max_tokens: int = 8192
    effort: Effort | None = None
    cost_fn: Callable[[str, Usage], float] = lambda model, usage: 0.0
    context_window_fn: Callable[[str], int | None] = lambda model: None
    auto_compact_limit: int | None = None  # tokens; None: 80 % of the window (when it is known)
    compact_provider: Callable[[], tuple[Provider, str]] | None = None  # `compact_model`: another model
    nested_memory: NestedMemory | None = None
    subagent: bool = False  # a Task child: SubagentStop instead of Stop; no SessionStart/SessionEnd hooks
    final_output: FinalOutput | None = None  # --json-schema: the run ends only once it is given
    provider_label: str | None = None  # what SessionStarted names: a local host ("llamacpp") or profile, not the wire
    tools_unseen: bool = False  # the server's chat template drops the tools: the context meter leaves them out


@dataclass(slots=True)
class _RunState:
    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    api_s: float = 0.0
    usage: Usage = field(default_factory=Usage)
    by_model: dict[str, Usage] = field(default_factory=dict)
    last_text: str = ""
    stop_hook_continues: int = 0
    children: dict[str, ModelUsage] = field(default_factory=dict)  # what subagents used, priced by themselves


class Observer(Protocol):
    """Sees every event a run yields, in order (telemetry); `close` is called once when the session ends."""

    def feed(self, event: AgentEvent) -> None: ...

    def close(self) -> None: ...


class Agent:
    """A session's agent. Front ends read its state and change it only through the command API below
    (`set_mode`, `switch_model`, `switch_preset`, `rewind`), which records each change in the session; the
    next turn uses it. The permission mode lives in the policy alone (`mode`)."""

    def __init__(
        self,
        *,
        provider: Provider,
        registry: ToolRegistry,
        policy: Policy,
        approver: Approver,
        ctx: ToolContext,
        options: AgentOptions,
        sink: SessionSink | None = None,
        history: list[Message] | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        self.provider = provider
        self.registry = registry
        self.policy = policy
        self.approver = approver
        self.ctx = ctx
        self.options = options
        self.sink: SessionSink = sink or NullSink("ephemeral")
        self.messages: list[Message] = list(history or [])
        self.total_cost_usd = 0.0
        self.total_usage = Usage()
        self.last_input_tokens = 0
        self.hooks = hooks
        self.observers: list[Observer] = []
        self._session_start: str | None = None if options.subagent else "resume" if self.messages else "startup"
        self.meter = ContextMeter(tools_unseen=options.tools_unseen)
        self._run_state: _RunState | None = None

    @property
    def session_id(self) -> str:
        return self.sink.session_id

    # ---- the command API ------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """The permission mode: the policy's, the one place it is kept."""
        return self.policy.mode

    def set_mode(self, mode: str) -> None:
        """Use permission mode `mode` from the next tool call on (plan mode brings the ExitPlanMode tool)."""
        if mode not in PERMISSION_MODES:
            raise UsageError(f"unknown permission mode {mode!r}", hint=f"use one of {', '.join(PERMISSION_MODES)}")
        if mode == "plan" and "ExitPlanMode" not in self.registry.enabled:
            self.registry.enabled.append("ExitPlanMode")
        if mode != self.policy.mode:
            self.policy.mode = mode
            self.sink.record("mode", {"mode": mode})

    async def switch_model(self, provider: Provider, model: str, provider_name: str, *,
                           recorded_provider: str | None = None, base_url: str | None = None,
                           tools_unseen: bool = False) -> None:
        """Answer with `model` of `provider` from the next turn on; the old provider's connections close. The
        session records the provider (its profile name, `recorded_provider`) and base URL, so resume finds it.
        `tools_unseen`: that server's chat template is known to drop the tools (agentcli.core.context)."""
        old, self.provider = self.provider, provider
        self.options.tools_unseen = self.meter.tools_unseen = tools_unseen
        self.options.model, self.options.provider_name = model, provider_name
        self.options.provider_label = recorded_provider
        record = {"model": model, "provider": recorded_provider or provider_name}
        self.sink.record("model_switch", {**record, "base_url": base_url} if base_url else record)
        if old is not provider:
            with contextlib.suppress(Exception):  # the old client failing to close must not undo the switch
                await old.aclose()

    def switch_preset(self, name: str, *, policy: Policy, tools: list[str], system_prompt: str) -> None:
        """A preset's rules and mode (`policy`), tools and system prompt from the next turn on; the conversation
        is kept."""
        self.policy = policy
        self.registry.enabled = list(tools)
        self.options.system_prompt = system_prompt
        self.sink.record("preset_switch", {"preset": name, "mode": policy.mode})

    def rewind(self, messages: list[Message]) -> None:
        """Continue from `messages`: the history a rewind restored (agentcli.session.rewind.apply_rewind has
        recorded it in the session file, where the transcript lives)."""
        self.messages = list(messages)
        self.meter.forget_reported()  # the provider's last count was of another history

    async def aclose(self, reason: str = "other") -> None:
        """Run SessionEnd hooks (`reason` as Claude Code names it: prompt_input_exit, clear, other …), then release
        the provider's connections, the tool sources (MCP servers) and the session file. A session's own agent
        (a subagent shares its parent's) also stops its background shells and its sandbox's proxy first and last:
        nothing it started outlives it, and no front end reaches into its parts to end them."""
        own = not self.options.subagent
        try:
            # Shells exist only if their module was loaded: a run that started none imports nothing at its end.
            background = sys.modules.get("agentcli.tools.background")
            if own and background is not None:
                with contextlib.suppress(Exception):
                    await background.kill_all(self.ctx)
            if self.ctx.subagents is not None:  # background subagents end with their session
                await self.ctx.subagents.aclose()
            hooks = None if self.options.subagent else self.hooks
            async for _ in fire(hooks, self.sink, "SessionEnd", reason, self.hook_payload(reason=reason)):
                pass
            await self.provider.aclose()
            await self.registry.aclose()
        finally:
            for observer in self.observers:
                observer.close()
            self.sink.close()
            if own and self.ctx.sandbox is not None:
                self.ctx.sandbox.close()

    def set_session_start(self, source: str) -> None:
        """How this session began, for the SessionStart hooks of the next run: startup, resume, clear, compact."""
        self._session_start = source

    def hook_payload(self, **fields: Any) -> dict[str, Any]:
        return {"session_id": self.session_id, "permission_mode": self.policy.mode, **fields}

    async def _prompt_hooks(self, prompt: Message, out: list[HookOutcome]) -> AsyncIterator[AgentEvent]:
        """SessionStart (first run of this agent) and UserPromptSubmit; their combined outcome goes to `out`."""
        outcomes: list[HookOutcome] = []
        if self._session_start is not None:
            source, self._session_start = self._session_start, None
            async for ev in fire(self.hooks, self.sink, "SessionStart", source, self.hook_payload(source=source)):
                if isinstance(ev, HookOutcome):
                    outcomes.append(ev)
                else:
                    yield ev
        async for ev in fire(self.hooks, self.sink, "UserPromptSubmit", None,
                             self.hook_payload(prompt=prompt.text)):
            if isinstance(ev, HookOutcome):
                outcomes.append(ev)
            else:
                yield ev
        first, last = outcomes[0], outcomes[-1]
        last.context = [*first.context, *last.context] if first is not last else last.context
        out.append(last)

    async def _stop_hooks(self, st: _RunState, out: list[HookOutcome]) -> AsyncIterator[AgentEvent]:
        payload = self.hook_payload(stop_hook_active=st.stop_hook_continues > 0)
        event = "SubagentStop" if self.options.subagent else "Stop"
        async for ev in fire(self.hooks, self.sink, event, None, payload):
            if isinstance(ev, HookOutcome):
                out.append(ev)
            else:
                yield ev

    def append(self, message: Message, **meta: Any) -> None:
        self.messages.append(message)
        self.sink.message(message, **meta)

    async def run(self, prompt: str | Message) -> AsyncIterator[AgentEvent]:
        """Run one user prompt to the end. Always ends with a `RunFinished` event unless cancelled."""
        async with aclosing(self._run(prompt)) as events:
            async for ev in events:
                for observer in self.observers:
                    observer.feed(ev)
                yield ev

    async def _run(self, prompt: str | Message) -> AsyncGenerator[AgentEvent, None]:
        st = _RunState()
        runner = ToolRunner(self.policy, self.approver, self.ctx, self.sink, self.set_mode, self.hooks)
        self._run_state = st
        if self.options.final_output is not None:
            self.options.final_output.start()
        await self.registry.refresh()  # MCP servers still connecting get their grace before init lists them
        yield self._started()
        for problem in self.sink.take_problems():  # e.g. the last run's closing snapshot failed
            yield Notice("warning", problem)
        message = await self.registry.attach(prompt if isinstance(prompt, Message) else Message.user(prompt))
        hooked: list[HookOutcome] = []
        async for hev in self._prompt_hooks(message, hooked):
            yield hev
        if hooked[0].block or hooked[0].stop:
            why = hooked[0].feedback or hooked[0].stop_reason or "blocked"
            err = PermissionDeniedError(f"A UserPromptSubmit hook blocked the prompt: {why}", code="prompt_blocked")
            yield self._finish(st, runner, "error_during_execution", err)
            return
        self.append(_with_context(message, "UserPromptSubmit", hooked[0].context))
        try:
            while True:
                st.turns += 1
                self._take_inbox(st)
                await self.registry.refresh()
                for level, text in self.registry.notices():
                    yield Notice("warning" if level == "warning" else "info", text)
                tools = self.registry.tools()
                yield TurnStarted(st.turns)
                box: list[MessageBuilder] = []
                async with aclosing(self._request(box, tools, st)) as request:
                    async for ev in request:
                        yield ev
                builder = box[-1]
                msg = builder.message()
                self.append(msg, usage=builder.usage.to_dict(), model=self.options.model,
                            cost_usd=self.options.cost_fn(self.options.model, builder.usage))
                self._account(st, builder.usage)
                st.last_text = msg.text or st.last_text
                yield AssistantMessage(msg, builder.usage, self.options.model, builder.stop_reason or "end_turn")
                calls = msg.tool_uses
                limit = self._limit_after_response(st, calls)
                if limit is not None:
                    if calls:
                        yield self._answer_unrun(calls, f"Not run: {limit.message}")
                    raise limit
                if not calls:
                    feedback: list[HookOutcome] = []
                    async for hev in self._stop_hooks(st, feedback):
                        yield hev
                    if not _continues(feedback[0], st):
                        reminder = self.options.final_output.missing() if self.options.final_output else None
                        if reminder is not None:
                            self.append(Message.user(reminder))
                            continue
                        yield self._finish(st, runner, "success")
                        return
                    self.append(Message.user(f"Stop hook feedback: {feedback[0].feedback}"))
                    continue
                async for ev in runner.run_calls(calls, tools):
                    if isinstance(ev, SubagentEvent) and isinstance(ev.event, RunFinished):
                        self._add_child(st, ev.event.result)
                    yield ev
                results = Message("user", (*runner.results_for(calls), *runner.take_attachments(),
                                           *self._nested_memory(calls)))
                self.append(results)
                yield ToolResultsMessage(results)
                self.sink.end_turn()
                final = self.options.final_output
                if runner.plan is not None or runner.stopped is not None or (final is not None and final.seen(calls)):
                    st.last_text = runner.plan or runner.stopped or st.last_text
                    yield self._finish(st, runner, "success")
                    return
                if self.options.max_turns is not None and st.turns >= self.options.max_turns:
                    raise LimitReachedError(f"Reached the turn limit ({self.options.max_turns})",
                                            hint="raise it with --max-turns", code="max_turns")
        except (asyncio.CancelledError, GeneratorExit):
            self._mark_interrupted()
            raise
        except AgentCliError as err:
            self._repair_after_interrupt()
            yield self._finish(st, runner, _subtype_for(err), err)
        except Exception as err:
            self._repair_after_interrupt()
            internal = AgentCliError(f"internal error: {type(err).__name__}: {err}", code="internal")
            yield self._finish(st, runner, "error_during_execution", internal)

    async def compact(self, focus: str | None = None) -> AsyncIterator[AgentEvent]:
        """`/compact [focus]`: compact the history now (prune, summarise, truncate) and record it."""
        if not any(m.role == "assistant" for m in self.messages):
            yield Notice("info", "Nothing to compact yet.")
            return
        async for ev in compactor.compact(self, "manual", "manual", focus or None):
            yield ev

    async def _request(self, box: list[MessageBuilder], tools: list[Any], st: _RunState
                       ) -> AsyncGenerator[AgentEvent, None]:
        """One model request. A "prompt too long" answer before any output compacts the history and retries
        the same turn once; a second one ends the run (never a loop). A request that would pass the compaction
        threshold is compacted first."""
        threshold = self.compact_limit()
        if threshold is not None and len(self.messages) > 1 and self.context_tokens() > threshold:
            async for ev in compactor.compact(self, "auto", "threshold"):
                yield ev
        for attempt in (1, 2):
            builder = MessageBuilder(provider=self.options.provider_name)
            box.append(builder)
            try:
                # aclosing: if our consumer closes us mid-stream, the turn's stream is closed now, keeping its text.
                async with aclosing(self._stream(builder, tools, st)) as stream:
                    async for ev in stream:
                        yield ev
                return
            except ContextOverflowError as err:
                if builder.output_seen:
                    raise
                if attempt == 2:
                    raise ContextOverflowError(
                        f"the conversation is still too long for {self.options.model} after compacting it "
                        f"(~{self.context_tokens():,} tokens): {err.message}",
                        hint="start a new session (/clear), lower model_auto_compact_token_limit, or use a model "
                             "with a larger window", status=err.status) from err
                async for ev in compactor.compact(self, "auto", "overflow"):
                    yield ev

    def set_system_prompt(self, text: str) -> None:
        """A rebuilt system prompt (memory files edited with /memory): used from the next request."""
        self.options.system_prompt = text

    # ---- context size and compaction state ----------------------------------------------------------------

    def window(self) -> int | None:
        return self.options.context_window_fn(self.options.model)

    def compact_limit(self) -> int | None:
        """Tokens past which the next request is compacted first."""
        return self.options.auto_compact_limit or compactor.default_limit(self.window())

    def request_tokens(self, messages: list[Message]) -> int:
        """The estimated size (tiktoken) of a request carrying `messages`, system prompt and tools included."""
        return self.meter.request_tokens(self.options.system_prompt, self.registry.tools(), messages)

    def message_size(self, m: Message) -> int:
        return self.meter.message_size(m)

    def context_tokens(self) -> int:
        """The size of the next request (agentcli.core.context); the status line and /context show it."""
        return self.meter.next_request(self.options.system_prompt, self.registry.tools(), self.messages,
                                       self.compact_limit())

    def replace_history(self, messages: list[Message], tokens: int) -> None:
        """After a compaction: continue from `messages` (already recorded by the compactor)."""
        self.messages = list(messages)
        self.meter.reported(len(self.messages), tokens)
        self.meter.keep_only(self.messages)

    def compaction_provider(self) -> tuple[Provider, str]:
        if self.options.compact_provider is not None:
            return self.options.compact_provider()
        return self.provider, self.options.model

    def count_usage(self, model: str, usage: Usage) -> None:
        """A request outside a turn (the summariser) costs like any other, in this run's result too."""
        st = self._run_state
        if st is not None:
            st.usage = st.usage + usage
            st.by_model[model] = st.by_model.get(model, Usage()) + usage
        self.total_usage = self.total_usage + usage
        self.total_cost_usd += self.options.cost_fn(model, usage)

    @property
    def todos(self) -> tuple[TodoItem, ...]:
        todos: tuple[TodoItem, ...] = self.ctx.state.get(TODOS_KEY, ())
        return todos

    def nested_memory_texts(self) -> tuple[str, ...]:
        return tuple(self.options.nested_memory.texts()) if self.options.nested_memory else ()

    def _nested_memory(self, calls: list[ToolUseBlock]) -> list[TextBlock]:
        """Memory files of subdirectories the tools just worked in, appended to the results once."""
        if self.options.nested_memory is None:
            return []
        paths = [str(c.input[k]) for c in calls for k in ("file_path", "path") if isinstance(c.input.get(k), str)]
        if self.ctx.shell_cwd is not None:
            paths.append(str(self.ctx.shell_cwd))
        return [TextBlock(t) for t in self.options.nested_memory(paths)]

    def _started(self) -> SessionStarted:
        tools = tuple(t.name for t in self.registry.tools())
        agents = getattr(self.ctx.subagents, "definitions", None) if "Task" in tools else None
        return SessionStarted(self.session_id, str(self.ctx.project_root), self.options.model,
                              self.options.provider_label or self.options.provider_name, tools,
                              self.policy.mode, tuple(self.registry.servers()), tuple(sorted(agents or ())))

    async def _stream(
        self, builder: MessageBuilder, tools: list[Any], st: _RunState
    ) -> AsyncGenerator[AgentEvent, None]:
        request = ModelRequest(
            model=self.options.model,
            system=self.options.system_prompt,
            messages=merge_consecutive(self.messages),
            tools=tuple(ToolSpec(t.name, t.description, t.input_schema) for t in tools),
            max_tokens=self.options.max_tokens,
            effort=self.options.effort,
        )
        t0 = time.monotonic()
        stream = self.provider.stream(request)
        try:
            async for ev in stream:
                builder.feed(ev)
                if isinstance(ev, Notice):
                    self.meter.saw(ev.code)
                yield ev
        except BaseException as exc:
            self._account_partial(builder, request, st)
            kept = self._keep_partial(builder)
            if kept is not None and not isinstance(exc, GeneratorExit):  # a closing generator may not yield
                yield kept
            raise
        else:
            if builder.usage.estimated or builder.usage == Usage():
                builder.usage = estimate_usage(request, builder.message())
        finally:
            st.api_s += time.monotonic() - t0
            # A cancelled or failed turn closes the provider's connection now, not when the GC finds it.
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    def _keep_partial(self, builder: MessageBuilder) -> AssistantMessage | None:
        """A broken or cancelled stream: keep the text and thinking that arrived (never half a tool call)."""
        if not builder.output_seen:
            return None
        partial = builder.message(complete_calls_only=True)
        partial = Message("assistant", tuple(b for b in partial.content if not isinstance(b, ToolUseBlock)))
        if not partial.content:
            return None
        self.append(partial, partial=True, model=self.options.model, usage=builder.usage.to_dict())
        return AssistantMessage(partial, builder.usage, self.options.model, "error", partial=True)

    def _account_partial(self, builder: MessageBuilder, request: ModelRequest, st: _RunState) -> None:
        """A stream stopped by Esc or an error still cost tokens once output came: count what the provider
        reported, else an estimate, so /cost and the status line do not show 0."""
        if not builder.output_seen:
            return
        if builder.usage.estimated or builder.usage == Usage():
            builder.usage = rough_usage(request, builder.message(complete_calls_only=True))
        self._account(st, builder.usage)

    def _account(self, st: _RunState, usage: Usage) -> None:
        model = self.options.model
        st.usage = st.usage + usage
        st.by_model[model] = st.by_model.get(model, Usage()) + usage
        self.total_usage = self.total_usage + usage
        self.total_cost_usd += self.options.cost_fn(model, usage)
        self.last_input_tokens = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        self.meter.reported(len(self.messages), self.last_input_tokens + usage.output_tokens)

    def _limit_after_response(self, st: _RunState, calls: list[ToolUseBlock]) -> LimitReachedError | None:
        budget = self.options.max_budget_usd
        if budget is not None and self._run_cost(st) >= budget:
            return LimitReachedError(
                f"Reached the budget limit (${budget:.2f})", hint="raise it with --max-budget-usd",
                code="max_budget_usd",
            )
        cap = self.options.max_tool_calls_per_turn
        if len(calls) > cap:
            return LimitReachedError(
                f"The model asked for {len(calls)} tool calls in one turn; the limit is {cap}",
                hint="raise it with --max-tool-calls-per-turn",
                code="max_tool_calls",
            )
        return None

    def _run_cost(self, st: _RunState) -> float:
        own = sum(self.options.cost_fn(m, u) for m, u in st.by_model.items())
        return own + sum(mu.cost_usd for mu in st.children.values())

    def _add_child(self, st: _RunState, result: RunResult) -> None:
        """A subagent finished: its usage and cost (priced by its own provider) count for this run."""
        for model, mu in result.model_usage.items():
            seen = st.children.get(model)
            st.children[model] = mu if seen is None else ModelUsage(seen.usage + mu.usage, seen.cost_usd + mu.cost_usd,
                                                                    seen.context_window)
            st.usage = st.usage + mu.usage
            self.total_usage = self.total_usage + mu.usage
            self.total_cost_usd += mu.cost_usd

    def _take_inbox(self, st: _RunState) -> None:
        """What finished in the background since the last turn (a background subagent's answer) is told to the
        model now, and its cost counted."""
        while self.ctx.inbox:
            note = self.ctx.inbox.pop(0)
            self.append(Message.user(str(getattr(note, "text", note))))
            result = getattr(note, "result", None)
            if isinstance(result, RunResult):
                self._add_child(st, result)

    def _model_usage(self, st: _RunState) -> dict[str, ModelUsage]:
        out = {m: ModelUsage(u, self.options.cost_fn(m, u), self.options.context_window_fn(m))
               for m, u in st.by_model.items()}
        for m, mu in st.children.items():
            mine = out.get(m)
            out[m] = mu if mine is None else ModelUsage(mine.usage + mu.usage, mine.cost_usd + mu.cost_usd,
                                                        mine.context_window)
        return out

    def _answer_unrun(self, calls: list[ToolUseBlock], text: str) -> ToolResultsMessage:
        msg = Message("user", tuple(ToolResultBlock(c.id, text, is_error=True) for c in calls))
        self.append(msg)
        return ToolResultsMessage(msg)

    def _mark_interrupted(self) -> None:
        """A run stopped by the user: its unanswered calls are answered, and a prompt (or tool results) the model
        never replied to is followed by the marker Claude Code writes, so the next request does not read as one
        merged prompt but as "this was interrupted, now this"."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == "assistant" and last.tool_uses:
            self._answer_unrun(last.tool_uses, INTERRUPTED)
        elif last is not None and last.role == "user" and last.text != INTERRUPTED:
            self.append(Message.user(INTERRUPTED))

    def _repair_after_interrupt(self) -> None:
        """Keep the transcript valid: every tool call of the last assistant message gets a result."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == "assistant" and last.tool_uses:
            self._answer_unrun(last.tool_uses, INTERRUPTED)

    def _finish(
        self, st: _RunState, runner: ToolRunner, subtype: str, err: AgentCliError | None = None
    ) -> RunFinished:
        self._run_state = None
        denials = tuple(runner.denials)
        status = err.exit_status if err else (3 if denials else 0)
        # one_line() removes secret shapes; the session's own secrets (a server may echo them) go here
        message = self.ctx.redact(err.one_line()) if err else None
        result = RunResult(
            subtype=subtype,
            is_error=err is not None,
            result=st.last_text if message is None else message,
            session_id=self.session_id,
            num_turns=st.turns,
            duration_ms=int((time.monotonic() - st.started) * 1000),
            duration_api_ms=int(st.api_s * 1000),
            total_cost_usd=self._run_cost(st),
            usage=st.usage,
            model_usage=self._model_usage(st),
            permission_denials=denials,
            error_code=err.code if err else None,
            error_message=message,
            exit_status=status,
            structured_output=self.options.final_output.value if self.options.final_output and err is None else None,
        )
        self.sink.record("result", {"subtype": subtype, "is_error": result.is_error, "num_turns": st.turns,
                                    "total_cost_usd": result.total_cost_usd, "error_code": result.error_code})
        self.sink.end_turn()
        return RunFinished(result)


def _with_context(message: Message, event: str, context: list[str]) -> Message:
    """The prompt plus what its hooks added for the model, as a separate text block the model can tell apart."""
    if not context:
        return message
    block = TextBlock(f"<hook_context event=\"{event}\">\n" + "\n\n".join(context) + "\n</hook_context>")
    return Message(message.role, (*message.content, block))


def _continues(outcome: HookOutcome, st: _RunState) -> bool:
    """A Stop hook that blocks with a reason makes the agent go on, a bounded number of times per run."""
    if not outcome.block or not outcome.feedback or st.stop_hook_continues >= MAX_STOP_HOOK_CONTINUES:
        return False
    st.stop_hook_continues += 1
    return True


def _subtype_for(err: AgentCliError) -> str:
    if err.code == "structured_output_retries":
        return "error_max_structured_output_retries"
    if isinstance(err, LimitReachedError):
        return {"max_turns": "error_max_turns", "max_budget_usd": "error_max_budget_usd"}.get(
            err.code, "error_during_execution"
        )
    return "error_during_execution"
