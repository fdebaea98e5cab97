"""The agent loop: one async generator. Ask the model, stream its events out, run its tool calls, repeat —
until the model stops, a guard trips (turns, budget, tool calls per turn) or the caller cancels.

Every message goes to the session sink as it happens; the transcript is kept valid for every provider
(each tool call answered by exactly one result) also when a run is cancelled or a stream breaks
(agentcli.core.interrupts). One model request is agentcli.core.model_request; the hooks around a run are
agentcli.core.runhooks; what a run used and its result are agentcli.core.runstate.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

from agentcli.core import interrupts, model_request, runhooks
from agentcli.core.assemble import MessageBuilder
from agentcli.core.context import ContextMeter, default_limit
from agentcli.core.events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    RunFinished,
    RunResult,
    SessionStarted,
    SubagentEvent,
    TodoItem,
    ToolResultsMessage,
    ToolStarted,
    TurnStarted,
)
from agentcli.core.hooks import HookOutcome, Hooks, fire
from agentcli.core.interrupts import INTERRUPTED
from agentcli.core.options import AgentOptions, NestedMemory, memory_for
from agentcli.core.parts import McpServers, Observer, ShellScope, Subagents
from agentcli.core.permissions import Approver, Policy
from agentcli.core.runstate import RunState, subtype_for
from agentcli.core.sink import NullSink, SessionSink
from agentcli.core.toolrun import ToolRunner
from agentcli.errors import AgentCliError, LimitReachedError, PermissionDeniedError
from agentcli.ids import new_uuid
from agentcli.llm.messages import Message, ToolUseBlock, Usage
from agentcli.llm.request import Provider
from agentcli.modes import PermissionMode, parse_mode
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.registry import ToolRegistry

__all__ = ["INTERRUPTED", "Agent", "AgentOptions", "NestedMemory", "Observer"]


class Agent:
    """A session's agent. Front ends read it through the narrow views below (`accepts_images`, `mcp`,
    `subagents`, `shell_cwd`, `shell_scope`), never its tool context, and change it only through the command API
    (`set_mode`, `switch_model`, `switch_preset`, `rewind`), which records each change in the session; the next
    turn uses it. The permission mode lives in the session's one state (`session`, agentcli.core.state), which the
    agent keeps for its whole life and hands every policy it uses; tests/core/test_front_end_walls.py holds the
    front ends to this."""

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
        self.session = policy.session  # the assembly built the first policy with the session's state
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
        self._run_state: RunState | None = None
        self._mcp: McpServers | None = None
        ctx.run_call = self.run_call

    @property
    def session_id(self) -> str:
        return self.sink.session_id

    # ---- what front ends may read: narrow views of the session's parts (agentcli.core.parts) -------------

    @property
    def model(self) -> str:
        """The model answering now (a /model switch changes it from the next turn on)."""
        return self.options.model

    @property
    def accepts_images(self) -> bool:
        """Whether the current model takes images (asked at the moment, so a model switch is seen at once)."""
        return self.options.accepts_images_fn(self.options.model)

    @property
    def mcp(self) -> McpServers | None:
        """The session's MCP servers, or None when none are configured."""
        return self._mcp

    def use_mcp(self, servers: McpServers) -> None:
        """Set by the assembly once the servers start (it also makes them a source of this agent's tools)."""
        self._mcp = servers

    @property
    def subagents(self) -> Subagents | None:
        """The subagent runner behind the Task tools, or None when subagents are off."""
        runner: Subagents | None = self.ctx.subagents
        return runner

    @property
    def shell_cwd(self) -> Path | None:
        """Where the Bash tool's shell is now (None: the project root, where it starts)."""
        return self.ctx.shell_cwd

    @property
    def shell_scope(self) -> ShellScope:
        """The environment and sandbox a command the user runs (`!cmd`) gets: the same as the agent's."""
        return self.ctx

    # ---- the command API ------------------------------------------------------------------------------

    @property
    def mode(self) -> PermissionMode:
        """The permission mode: the session state's, the one place it is kept."""
        return self.session.mode

    def set_mode(self, mode: str) -> None:
        """Use permission mode `mode` from the next tool call on (plan mode brings the ExitPlanMode tool)."""
        new = parse_mode(mode)
        if new == "plan" and "ExitPlanMode" not in self.registry.enabled:
            self.registry.enabled.append("ExitPlanMode")
        if new != self.session.mode:
            self.session.mode = new
            self.sink.record("mode", {"mode": new})
            self.session.changed("mode", self.model)

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
        self.session.changed("model", self.model)
        if old is not provider:
            with contextlib.suppress(Exception):  # the old client failing to close must not undo the switch
                await old.aclose()

    def switch_preset(self, name: str, *, policy: Policy, tools: list[str], system_prompt: str) -> None:
        """A preset's rules and mode (`policy`, built with a state of its own), tools and system prompt from the
        next turn on; the conversation is kept. The new policy takes the session's state, so whoever reads the
        mode (the sandbox, the status line) reads the one the preset set."""
        self.session.mode, self.session.preset = policy.mode, name
        policy.session = self.session
        self.policy = policy
        self.registry.enabled = list(tools)
        self.options.system_prompt = system_prompt
        self.sink.record("preset_switch", {"preset": name, "mode": self.session.mode})
        self.session.changed("preset", self.model)


    def note_read(self, path: Path) -> None:
        """The person attached `path` whole to a prompt (`@file`): the model has read it, as with Read, so
        Edit and Write may change it (until it changes on disk)."""
        from agentcli.tools.files import record_read

        try:
            real = Path(os.path.realpath(path))
            record_read(self.ctx, real, os.stat(real).st_mtime_ns)
        except OSError:
            pass

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
            if self.subagents is not None:  # background subagents end with their session
                await self.subagents.aclose()
            hooks = None if self.options.subagent else self.hooks
            async for _ in fire(hooks, self.sink, "SessionEnd", reason, self.hook_payload(reason=reason)):
                pass
            await self.provider.aclose()
            await self.registry.aclose()
        finally:
            try:
                for observer in self.observers:
                    observer.close()
                self.sink.close()
            finally:  # the proxy is stopped even when closing the session file failed
                if own and self.ctx.sandbox is not None:
                    self.ctx.sandbox.close()

    def _repair(self, *, by_user: bool) -> None:
        if (fix := interrupts.repair(self.messages, by_user=by_user)) is not None:
            self.append(fix)

    def set_session_start(self, source: str) -> None:
        """How this session began, for the SessionStart hooks of the next run: startup, resume, clear, compact."""
        self._session_start = source

    def hook_payload(self, **fields: Any) -> dict[str, Any]:
        return {"session_id": self.session_id, "permission_mode": self.policy.mode, **fields}

    def append(self, message: Message, **meta: Any) -> None:
        self.messages.append(message)
        self.sink.message(message, **meta)

    async def run(self, prompt: str | Message, *, as_written: bool = False) -> AsyncIterator[AgentEvent]:
        """Run one user prompt to the end. Always ends with a `RunFinished` event unless cancelled. `as_written`:
        a prompt that looks like a command (`/name`) is sent as it is (the Agent SDK's `verbatim_prompts`)."""
        async with aclosing(self._run(prompt, as_written)) as events:
            async for ev in events:
                if type(ev) is RunFinished:
                    await self.sink.settle()
                for observer in self.observers:
                    observer.feed(ev)
                yield ev

    async def _run(self, prompt: str | Message, as_written: bool = False) -> AsyncGenerator[AgentEvent, None]:
        st = RunState()
        runner = ToolRunner(self.policy, self.approver, self.ctx, self.sink, self.set_mode, self.hooks,
                            session=self.session)
        self._run_state = st
        if self.options.final_output is not None:
            self.options.final_output.start()
        await self.registry.refresh()  # MCP servers still connecting get their grace before init lists them
        yield self._started()
        for change in self.session.take_changes():
            yield change
        for problem in self.sink.take_problems():  # e.g. the last run's closing snapshot failed
            yield Notice("warning", problem)
        try:  # an MCP prompt run as a command (`/mcp__server__prompt`) may fail: the run's result says why
            message = await self.registry.attach(prompt if isinstance(prompt, Message) else Message.user(prompt),
                                                 expand=not as_written)
        except AgentCliError as failed:
            yield self._finish(st, runner, subtype_for(failed), failed)
            return
        hooked: list[HookOutcome] = []
        source, self._session_start = self._session_start, None
        async for hev in runhooks.prompt_hooks(self, source, message, hooked):
            yield hev
        if hooked[0].block or hooked[0].stop:
            why = hooked[0].feedback or hooked[0].stop_reason or "blocked"
            err = PermissionDeniedError(f"A UserPromptSubmit hook blocked the prompt: {why}", code="prompt_blocked")
            yield self._finish(st, runner, "error_during_execution", err)
            return
        self.append(runhooks.with_context(message, "UserPromptSubmit", hooked[0].context))
        try:
            while True:
                async with aclosing(self._turn(st, runner)) as turn:
                    async for ev in turn:
                        yield ev
                        if isinstance(ev, RunFinished):
                            return
        except (asyncio.CancelledError, GeneratorExit):
            self._repair(by_user=True)
            raise
        except AgentCliError as err:
            self._repair(by_user=False)
            yield self._finish(st, runner, subtype_for(err), err)
        except Exception as err:
            self._repair(by_user=False)
            internal = AgentCliError(f"internal error: {type(err).__name__}: {err}", code="internal")
            yield self._finish(st, runner, "error_during_execution", internal)

    async def _turn(self, st: RunState, runner: ToolRunner) -> AsyncGenerator[AgentEvent, None]:
        """One turn: ask the model, then run its tool calls, or end the run (yielding its `RunFinished`) when it
        stopped and no Stop hook sends it on. A tripped guard raises."""
        st.turns += 1
        for told in self._background_notices():
            yield told
        self._take_inbox(st)
        await self.registry.refresh()
        for level, text in self.registry.notices():
            yield Notice("warning" if level == "warning" else "info", text)
        tools = self.registry.tools()
        yield TurnStarted(st.turns)
        box: list[MessageBuilder] = []
        async with aclosing(model_request.request(self, box, tools, st)) as request:
            async for ev in request:
                yield ev
        builder = box[-1]
        msg = builder.message()
        self.append(msg, usage=builder.usage.to_dict(), model=self.options.model,
                    cost_usd=self.options.cost_fn(self.options.model, builder.usage))
        self.account(st, builder.usage)
        st.last_text = msg.text or st.last_text
        yield AssistantMessage(msg, builder.usage, self.options.model, builder.stop_reason or "end_turn")
        calls = msg.tool_uses
        limit = st.limit_after_response(self.options, calls)
        if limit is not None:
            if calls:
                self.append(unrun := interrupts.unrun_results(calls, f"Not run: {limit.message}"))
                yield ToolResultsMessage(unrun)
            raise limit
        steps = self._run_tools(st, runner, calls, tools) if calls else self._stopped(st, runner)
        async with aclosing(steps) as events:
            async for ev in events:
                yield ev

    async def _stopped(self, st: RunState, runner: ToolRunner) -> AsyncGenerator[AgentEvent, None]:
        """The model answered without tool calls: the run ends, unless a Stop hook sends it on or the structured
        output it must give is still missing."""
        feedback: list[HookOutcome] = []
        async for hev in runhooks.stop_hooks(self, st, feedback):
            yield hev
        if runhooks.continues(feedback[0], st):
            self.append(Message.user(f"Stop hook feedback: {feedback[0].feedback}"))
            return
        reminder = self.options.final_output.missing() if self.options.final_output else None
        if reminder is not None:
            self.append(Message.user(reminder))
            return
        if self.options.await_background and self.subagents is not None and await self.subagents.settle():
            return  # a background subagent's answer is the next turn's input
        for told in self._background_notices():
            yield told
        yield self._finish(st, runner, "success")

    async def _run_tools(self, st: RunState, runner: ToolRunner, calls: list[ToolUseBlock], tools: list[Any]
                         ) -> AsyncGenerator[AgentEvent, None]:
        """Run the turn's tool calls and record their results; the run ends after an approved plan, a hook's
        stop or the structured output, and a guard trips at the turn limit."""
        async for ev in runner.run_calls(calls, tools):
            if isinstance(ev, SubagentEvent) and isinstance(ev.event, RunFinished):
                self._add_child(st, ev.event.result)
            yield ev
        for change in self.session.take_changes():  # an approved plan's mode
            yield change
        results = Message("user", (*runner.results_for(calls), *runner.take_attachments(),
                                   *memory_for(self.options.nested_memory, calls, self.ctx.shell_cwd)))
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

    async def run_call(self, name: str, args: dict[str, Any]) -> ToolOutput:
        """A tool call made for the user, not by the model (a custom command's !`command`): hooks, the policy (and
        its question), the sandbox, as for the model's calls; its result is returned, not added to the transcript.
        `metadata["refused"]`: it was not allowed to run (or the session has no such tool)."""
        tools = self.registry.tools()
        if all(t.name != name for t in tools):
            return ToolOutput(f"{name} is not among this session's tools", is_error=True, metadata={"refused": True})
        runner = ToolRunner(self.policy, self.approver, self.ctx, self.sink, self.set_mode, self.hooks,
                            session=self.session)
        call = ToolUseBlock(f"user_{new_uuid().replace('-', '')[:24]}", name, args)
        ran = False  # a call that starts was allowed (it may still fail, or be stopped by the sandbox)
        async for ev in runner.run_calls([call], tools):
            ran = ran or isinstance(ev, ToolStarted)  # the rest is the result's (the caller says a refusal)
        block = runner.results_for([call])[0]
        return ToolOutput(block.content, is_error=block.is_error, metadata={"refused": not ran})

    async def compact(self, focus: str | None = None) -> AsyncIterator[AgentEvent]:
        """`/compact [focus]`: compact the history now (prune, summarise, truncate) and record it."""
        if not any(m.role == "assistant" for m in self.messages):
            yield Notice("info", "Nothing to compact yet.")
            return
        from agentcli.core import compactor  # imported at the first compaction: most runs never compact

        async for ev in compactor.compact(self, "manual", "manual", focus or None):
            yield ev

    def set_system_prompt(self, text: str) -> None:
        """A rebuilt system prompt (memory files edited with /memory): used from the next request."""
        self.options.system_prompt = text

    # ---- context size and compaction state ----------------------------------------------------------------

    def window(self) -> int | None:
        return self.options.context_window_fn(self.options.model)

    def compact_limit(self) -> int | None:
        """Tokens past which the next request is compacted first."""
        return self.options.auto_compact_limit or default_limit(self.window())

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
        if self._run_state is not None:
            self._run_state.add(model, usage)
        self.total_usage = self.total_usage + usage
        self.total_cost_usd += self.options.cost_fn(model, usage)

    def account(self, st: RunState, usage: Usage) -> None:
        """A turn's request (or what a broken stream cost): counted for the run and the session, and its input
        size is the context meter's new base."""
        model = self.options.model
        st.add(model, usage)
        self.total_usage = self.total_usage + usage
        self.total_cost_usd += self.options.cost_fn(model, usage)
        self.last_input_tokens = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        self.meter.reported(len(self.messages), self.last_input_tokens + usage.output_tokens)

    def _add_child(self, st: RunState, result: RunResult) -> None:
        """A subagent finished: its usage and cost (priced by its own provider) count for this run."""
        usage, cost = st.add_child(result)
        self.total_usage = self.total_usage + usage
        self.total_cost_usd += cost

    @property
    def todos(self) -> tuple[TodoItem, ...]:
        return self.session.todos

    def nested_memory_texts(self) -> tuple[str, ...]:
        return tuple(self.options.nested_memory.texts()) if self.options.nested_memory else ()

    def _started(self) -> SessionStarted:
        tools = tuple(t.name for t in self.registry.tools())
        agents = self.subagents.definitions if "Task" in tools and self.subagents is not None else None
        return SessionStarted(self.session_id, str(self.ctx.project_root), self.options.model,
                              self.options.provider_label or self.options.provider_name, tools,
                              self.policy.mode, tuple(self.registry.servers()), tuple(sorted(agents or ())),
                              self.registry.listed.skills, self.registry.listed.plugins,
                              self.registry.listed.slash_commands)

    def _background_notices(self) -> list[SubagentEvent]:
        """What background subagents had to say (their notices, wrapped as theirs) since the last look: told now,
        as the parent's own would be."""
        inbox = self.ctx.inbox
        told = [item for item in inbox if isinstance(item, SubagentEvent)]
        inbox[:] = [item for item in inbox if not isinstance(item, SubagentEvent)]
        return told

    def _take_inbox(self, st: RunState) -> None:
        """What finished in the background since the last turn (a background subagent's answer) is told to the
        model now, and its cost counted."""
        while self.ctx.inbox:
            note = self.ctx.inbox.pop(0)
            self.append(Message.user(str(getattr(note, "text", note))))
            result = getattr(note, "result", None)
            if isinstance(result, RunResult):
                self._add_child(st, result)

    def _finish(self, st: RunState, runner: ToolRunner, subtype: str, err: AgentCliError | None = None
                ) -> RunFinished:
        self._run_state = None
        # one_line() removes secret shapes; the session's own secrets (a server may echo them) go too
        result = st.result(self.options, self.session_id, subtype, tuple(runner.denials), err, self.ctx.redact)
        self.sink.record("result", {"subtype": subtype, "is_error": result.is_error, "num_turns": st.turns,
                                    "total_cost_usd": result.total_cost_usd, "error_code": result.error_code})
        self.sink.end_turn()
        return RunFinished(result)
