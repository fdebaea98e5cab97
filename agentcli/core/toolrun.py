"""Running one turn's tool calls: look up, validate, decide (policy → approver), checkpoint, run, redact.

Every failure becomes an error result the model can read; nothing here ends the run. Read-only calls that are
allowed run concurrently; the rest run one at a time in the model's order.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

from agentcli.core.calls import CallScope, current_call
from agentcli.core.events import AgentEvent, Notice, PermissionDecision, TodosUpdated, ToolFinished, ToolStarted
from agentcli.core.hooks import HookOutcome, Hooks, fire
from agentcli.core.permissions import ApprovalRequest, Approver, DenyingApprover, Policy, Verdict
from agentcli.core.sink import SessionSink
from agentcli.core.state import SessionState
from agentcli.llm.messages import ContentBlock, ToolResultBlock, ToolUseBlock
from agentcli.record import record
from agentcli.tools.base import Tool, ToolContext, ToolOutput
from agentcli.tools.paths import outside_approved

OUTER_MARGIN_S = 5.0  # past a tool's own bound, so the tool reports its timeout itself (and cleans up) first


def tool_bound_s(tool: Tool, ctx: ToolContext) -> float:
    """How long a call may run: the session's tool timeout, or the tool's own when it declares a longer one (an MCP
    tool's MCP_TOOL_TIMEOUT or its server's `timeout`), which the user set for exactly that tool."""
    own = getattr(tool, "timeout_s", None)
    if isinstance(own, int | float) and not isinstance(own, bool) and own > ctx.tool_timeout_s:
        return float(own)
    return ctx.tool_timeout_s


def _problems(tool: Tool, args: dict[str, Any]) -> list[str]:
    """What is wrong with `args` for `tool`'s schema (or in its strings). Imported at the first tool call: a run
    that calls no tool needs none of the checks (issue 25)."""
    from agentcli.proc.validate import unusable_strings, validate_args

    return validate_args(tool.input_schema, args) or unusable_strings(args)


def outer_bound_s(tool: Tool, ctx: ToolContext) -> float:
    """When the runner cuts a call that did not end within its own bound."""
    return tool_bound_s(tool, ctx) + OUTER_MARGIN_S


@record(frozen=False)
class _Ready:
    call: ToolUseBlock
    tool: Tool
    args: dict[str, Any]
    note: str | None = None
    recheck: bool = False  # a call that may change files, allowed by the policy on its own: decided again as it runs


class ToolRunner:
    """Runs tool calls for one agent run; collects results, permission denials and an ExitPlanMode plan."""

    def __init__(
        self, policy: Policy, approver: Approver, ctx: ToolContext, sink: SessionSink,
        set_mode: Callable[[str], None], hooks: Hooks | None = None, *, session: SessionState,
    ) -> None:
        self.policy = policy
        self.session = session
        self.set_mode = set_mode  # the agent's: an approved plan changes the mode, recorded like any change
        self.approver = approver
        self.ctx = ctx
        self.sink = sink
        self.hooks = hooks
        self.denials: list[dict[str, Any]] = []
        self.plan: str | None = None
        self.stopped: str | None = None  # a hook's `"continue": false`: the run ends after this turn
        self._results: dict[str, ToolResultBlock] = {}
        self._attachments: list[ContentBlock] = []

    def take_attachments(self) -> list[ContentBlock]:
        """Blocks tools produced for the model beside their text results (a Read image), to follow the results."""
        out, self._attachments = self._attachments, []
        return out

    def _payload(self, **fields: Any) -> dict[str, Any]:
        return {"session_id": self.sink.session_id, "permission_mode": self.policy.mode, **fields}

    async def _hook(
        self, event: str, target: str, out: list[HookOutcome], **fields: Any
    ) -> AsyncIterator[AgentEvent]:
        """Fire `event`'s hooks; their events are yielded, the combined outcome is appended to `out`."""
        async for ev in fire(self.hooks, self.sink, event, target, self._payload(**fields)):
            if isinstance(ev, HookOutcome):
                out.append(ev)
                if ev.stop and self.stopped is None:
                    self.stopped = ev.stop_reason
            else:
                yield ev

    def results_for(self, calls: list[ToolUseBlock]) -> list[ToolResultBlock]:
        return [self._results[c.id] for c in calls]

    async def run_calls(self, calls: list[ToolUseBlock], tools: list[Tool]) -> AsyncIterator[AgentEvent]:
        by_name = {t.name: t for t in tools}
        batch: list[_Ready] = []
        for call in calls:
            ready: _Ready | None = None
            async for ev in self._prepare(call, by_name):
                if isinstance(ev, _Ready):
                    ready = ev
                else:
                    yield ev
            if ready is None:
                continue
            if ready.tool.read_only:
                batch.append(ready)
                continue
            async for out in self._run_batch(batch):
                yield out
            batch = []
            async for out in self._run_batch([ready]):
                yield out
        async for out in self._run_batch(batch):
            yield out

    async def _prepare(
        self, call: ToolUseBlock, by_name: dict[str, Tool]
    ) -> AsyncIterator[AgentEvent | _Ready]:
        tool = by_name.get(call.name)
        if tool is None:
            # A tool source's tool not offered this turn (a deferred MCP tool), or why it cannot run.
            lookup = self.ctx.tool_lookup
            found = lookup(call.name) if lookup is not None else None
            if isinstance(found, str):
                yield self._fail(call, found)
                return
            tool = found
        if tool is None:
            names = ", ".join(sorted(by_name)) or "none"
            yield self._fail(call, f"Unknown tool '{call.name}'. Available tools: {names}.")
            return
        if call.raw_arguments is not None:
            yield self._fail(call, _bad_json_message(call.raw_arguments))
            return
        problems = _problems(tool, call.input)
        if problems:
            yield self._fail(call, _schema_message(tool, problems))
            return
        pre: list[HookOutcome] = []
        async for ev in self._hook("PreToolUse", tool.name, pre, tool_name=tool.name, tool_input=call.input,
                                   tool_use_id=call.id):
            yield ev
        hook = pre[0]
        if hook.permission == "deny" or self.stopped is not None:
            reason = hook.reason or self.stopped or "A PreToolUse hook blocked this call."
            yield self._decision(call, tool, call.input, Verdict("deny", "hook", reason=reason), None)
            self.denials.append({"tool_name": tool.name, "tool_use_id": call.id, "tool_input": call.input})
            yield self._fail(call, _denial_message(tool.name, "hook", reason))
            return
        args = call.input
        if hook.updated_input is not None and hook.updated_input != call.input:
            problems = _problems(tool, hook.updated_input)
            if problems:
                yield self._fail(call, "A PreToolUse hook rewrote this call's input, but the result is not valid: "
                                 + _schema_message(tool, problems))
                return
            args = hook.updated_input
        async for item in self._decide(call, tool, args, hook):
            yield item

    async def _decide(
        self, call: ToolUseBlock, tool: Tool, args: dict[str, Any], hook: HookOutcome
    ) -> AsyncIterator[AgentEvent | _Ready]:
        try:
            own = self.policy.check(tool, args)
            verdict = _with_hook(own, hook)
        except Exception as err:  # input the policy cannot judge is denied, never guessed
            own = verdict = Verdict("deny", "policy", reason=f"Permission check failed for this {tool.name} call "
                                                             f"({type(err).__name__}: {err}); it was not run.")
        behavior, by, reason, updated = verdict.behavior, verdict.by, verdict.reason, None
        asks_a_person = getattr(self.approver, "interactive", True)
        unread = None
        if behavior == "ask" and asks_a_person:
            from agentcli.tools.files import unread_change

            unread = await unread_change(tool.name, args, self.ctx)
        if unread is not None:
            yield self._fail(call, unread)  # it would fail after a person's approval: do not ask them for one
            return
        if behavior == "ask":
            asked: list[HookOutcome] = []
            async for ev in self._hook("PermissionRequest", tool.name, asked, tool_name=tool.name, tool_input=args,
                                       tool_use_id=call.id, permission_suggestions=[]):
                yield ev
            if asked[0].permission in ("allow", "deny"):
                behavior, by = asked[0].permission, "hook"
                reason, updated = asked[0].reason or asked[0].feedback, asked[0].updated_input
            else:
                if not isinstance(self.approver, DenyingApprover):
                    async for ev in self._hook("Notification", "permission_prompt", [],
                                               message=f"agentcli needs your permission to use {tool.name}",
                                               notification_type="permission_prompt"):
                        yield ev
                await _progress_shown()
                approval = await self.approver.approve(
                    ApprovalRequest(call.id, tool.name, args, tool.read_only, verdict.reason)
                )
                behavior, reason, updated = approval.behavior, approval.reason, approval.updated_input
                by = getattr(self.approver, "name", "user")
                if approval.behavior == "allow" and approval.remember:
                    scope = approval.scope or "session"
                    for problem in self.policy.remember(approval.remember, scope):
                        yield Notice("warning", problem)
                    self.sink.record("rule", {"rule": approval.remember, "scope": scope})
        assert behavior in ("allow", "deny")
        yield self._decision(call, tool, args, Verdict(behavior, by, verdict.rule, reason), updated)
        if behavior == "deny":
            self.denials.append({"tool_name": tool.name, "tool_use_id": call.id, "tool_input": args})
            yield self._fail(call, _denial_message(tool.name, by, reason))
            return
        notes = []
        if args is not call.input:
            notes.append(f"A hook changed this call before it ran. It ran with: {_dumps(args)}")
        if updated is not None and updated != args:
            problems = _problems(tool, updated)
            if problems:
                yield self._fail(call, _schema_message(tool, problems))
                return
            denied = self._denied_edit(tool, updated)
            if denied is not None:
                self.denials.append({"tool_name": tool.name, "tool_use_id": call.id, "tool_input": updated})
                yield self._fail(call, denied)
                return
            args = updated
            who = "A hook" if by == "hook" else "The user"
            notes.append(f"{who} edited this call before it ran. It ran with: {_dumps(updated)}")
        notes += [f"PreToolUse hook context: {c}" for c in hook.context]
        # what the policy allowed alone (not a hook, not the person) it must still allow when the call runs
        recheck = not tool.read_only and own.behavior == verdict.behavior == "allow" and updated is None
        yield _Ready(call, tool, args, "\n".join(notes) or None, recheck)

    def _denied_edit(self, tool: Tool, updated: dict[str, Any]) -> str | None:
        """An edited input is a new call: a deny rule (or plan mode) that covers it still applies."""
        try:
            again = self.policy.check(tool, updated)
        except Exception as err:
            return f"Permission check failed for the edited {tool.name} call ({type(err).__name__}); it was not run."
        if again.behavior != "deny":
            return None
        return again.reason or f"The edited {tool.name} call is denied by {again.rule or 'the permission policy'}."

    def _decision(
        self, call: ToolUseBlock, tool: Tool, args: dict[str, Any], v: Verdict, updated: dict[str, Any] | None
    ) -> PermissionDecision:
        decision = PermissionDecision(call.id, tool.name, args, "allow" if v.behavior == "allow" else "deny", v.by,
                                      v.rule, v.reason, updated)
        self.sink.record("permission", _decision_record(decision))
        return decision

    async def _run_batch(self, batch: list[_Ready]) -> AsyncIterator[AgentEvent]:
        if not batch:
            return
        for r in batch:
            yield ToolStarted(r.call.id, r.tool.name, r.args)
            if not r.tool.read_only:
                await self.sink.checkpoint(r.call.id, r.tool.name)
                for problem in self.sink.take_problems():
                    yield Notice("warning", problem)
        relay = _Relay()
        running = asyncio.ensure_future(asyncio.gather(*(self._execute(r, relay) for r in batch)))
        try:
            async for ev in relay.forward(running):
                yield ev
        finally:
            if not running.done():
                running.cancel()
                # A cancelled batch (Esc) may still end in an exception (an MCP call's anyio scope turns the
                # cancellation into one); nobody wants it, and an unretrieved one is printed over the REPL.
                running.add_done_callback(_retrieve)
        outs = running.result()
        for r, (out, ms) in zip(batch, outs, strict=True):
            if out.metadata.get("sandbox_denied"):
                out, ms = await self._escalate(r, out, ms)
            content = self.ctx.redact(out.content)
            if r.note:
                content = f"{r.note}\n\n{content}"
            if "plan" in out.metadata and not out.is_error:
                content = self.ctx.redact(await self._review_plan(r, str(out.metadata["plan"])))
            post: list[HookOutcome] = []
            async for ev in self._post_hooks(r, out.is_error, content, post, out.metadata):
                yield ev
            content += "".join(f"\n\n{name} hook: {text}" for name, text in _post_feedback(post[0], out.is_error))
            todos = self._take_todos(out.metadata)
            self._attachments += out.metadata.get("attachments", [])
            block = ToolResultBlock(r.call.id, content, out.is_error)
            self._results[r.call.id] = block
            display = self.ctx.redact(out.display) if out.display else None
            yield ToolFinished(r.call.id, r.tool.name, r.args, block, ms, display)
            if self.ctx.sandbox is not None and (told := self.ctx.sandbox.take_notice()):
                yield Notice("warning", told)  # the sandbox turned out not to work: never silent (issue 28)
            if todos is not None:
                yield todos

    def _take_todos(self, meta: dict[str, Any]) -> TodosUpdated | None:
        """TodoWrite ran: keep the list in the session state and the session file."""
        if "todos" not in meta:
            return None
        from agentcli.core.todos import todos_data, todos_from

        todos = todos_from(meta["todos"])
        self.session.todos = todos
        self.sink.record("todos", {"todos": todos_data(todos)})
        return TodosUpdated(todos)

    def _post_hooks(
        self, r: _Ready, failed: bool, content: str, out: list[HookOutcome], meta: dict[str, Any]
    ) -> AsyncIterator[AgentEvent]:
        fields: dict[str, Any] = {"tool_name": r.tool.name, "tool_input": r.args, "tool_use_id": r.call.id}
        if failed:
            return self._hook("PostToolUseFailure", r.tool.name, out, **fields, error=content, is_interrupt=False)
        from agentcli.tools.hookresponse import tool_response

        response = tool_response(r.tool.name, r.args, content, meta)  # Claude Code's per-tool shape
        return self._hook("PostToolUse", r.tool.name, out, **fields, tool_response=response)

    async def _review_plan(self, r: _Ready, plan: str) -> str:
        """ExitPlanMode ran: ask the person (an approval request of kind "plan"); an approval sets the mode
        they chose. With nobody to ask (headless) the plan becomes the run's result. Returns what the model
        reads."""
        if not self.approver.interactive:
            self.sink.record("plan", {"tool_use_id": r.call.id, "plan": plan, "approved": None, "mode": None})
            self.plan = plan
            return plan
        answer = await self.approver.approve(
            ApprovalRequest(r.call.id, r.tool.name, r.args, True, kind="plan", plan=plan)
        )
        mode = (answer.mode or "default") if answer.behavior == "allow" else None
        self.sink.record("plan", {"tool_use_id": r.call.id, "plan": plan, "approved": mode is not None,
                                  "mode": mode})
        if mode is not None:
            self.set_mode(mode)
            return f"The user approved your plan. Permission mode is now {mode}. Start implementing it.\n\n{plan}"
        feedback = answer.reason or "(no feedback given)"
        return f"The user did not approve the plan and wants you to keep planning. Their feedback: {feedback}"

    async def _escalate(self, r: _Ready, out: ToolOutput, ms: int) -> tuple[ToolOutput, int]:
        """The sandbox stopped this call: re-run it outside if the person agrees (now or earlier this session),
        else report it as a permission denial (agentcli.core.escalation)."""
        from agentcli.core import escalation

        line = str(out.metadata["sandbox_denied"])
        if not escalation.remembered(self.ctx, r.args):
            await _progress_shown()
            approval = await escalation.ask(self.approver, escalation.request(r.call.id, r.tool.name, r.args, line))
            # An edited command is not what the sandbox stopped: running it unconfined would skip the review.
            allowed = (approval is not None and approval.behavior == "allow"
                       and approval.updated_input in (None, r.args))
            self.sink.record("permission", {"tool_use_id": r.call.id, "tool_name": r.tool.name, "input": r.args,
                                            "behavior": "allow" if allowed else "deny", "by": "sandbox",
                                            "rule": None, "reason": line, "updated_input": None})
            if approval is None or not allowed:
                self.denials.append({"tool_name": r.tool.name, "tool_use_id": r.call.id, "tool_input": r.args})
                return out, ms
            saved = escalation.remember(self.ctx, approval)
        else:
            saved = None
        ctx = escalation.unconfined_context(self.ctx)
        again, ms2 = await self._execute(r, _Relay.unforwarded(), ctx)
        self.ctx.shell_cwd = ctx.shell_cwd
        note = "The sandbox stopped this command; the user approved running it outside the sandbox"
        note += f" ({saved}):\n" if saved else ":\n"
        return replace(again, content=note + again.content), ms + ms2

    async def _execute(self, r: _Ready, relay: _Relay, ctx: ToolContext | None = None) -> tuple[ToolOutput, int]:
        ctx = ctx or self.ctx
        t0 = time.monotonic()
        current_call.set(CallScope(r.call.id, relay.put, relay.settled_through(current_call.get())))
        changed = self._changed_since_decided(r)
        if changed is not None:
            return ToolOutput.error(changed), 0
        try:
            # The policy has already decided this call, paths outside the project included.
            with outside_approved():
                out = await asyncio.wait_for(r.tool.run(r.args, ctx), timeout=outer_bound_s(r.tool, ctx))
        except TimeoutError:
            out = ToolOutput.error(f"{r.tool.name} timed out after {tool_bound_s(r.tool, ctx):.0f} s.")
        except OSError as err:  # the system refused (name too long, permission, I/O): the model can adapt
            where = f" ({err.filename})" if err.filename else ""
            out = ToolOutput.error(f"{r.tool.name}: {err.strerror or err}{where}.")
        except Exception as err:
            out = ToolOutput.error(f"{r.tool.name} failed: {type(err).__name__}: {err}")
        return out, int((time.monotonic() - t0) * 1000)

    def _changed_since_decided(self, r: _Ready) -> str | None:
        """A call that changes files is decided when the turn's calls are, but runs later, after a subagent or a
        command of the same turn may have turned a directory on its path into a link out of the project. Decided
        again now, with no wait before the tool resolves its paths, it runs only if the answer is still yes."""
        if not r.recheck:
            return None
        try:
            again = self.policy.check(r.tool, r.args)
        except Exception as err:  # input the policy cannot judge is denied, never guessed
            return f"{r.tool.name} was not run: the permission check failed ({type(err).__name__})."
        if again.behavior == "allow":
            return None
        return (f"{r.tool.name} was not run: its path changed since the call was allowed "
                f"({again.reason or again.behavior}). Check where the path leads and try again.")

    def _fail(self, call: ToolUseBlock, message: str) -> ToolFinished:
        block = ToolResultBlock(call.id, message, is_error=True)
        self._results[call.id] = block
        return ToolFinished(call.id, call.name, call.input, block, 0)


def _retrieve(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()


async def _progress_shown() -> None:
    """Before a question: when this agent is a subagent, wait until what it did so far has been taken by the
    consumer of the parent's stream (drawn), so the person never answers for a call whose context is not on
    the screen yet. The child's events travel the parent's stream; its question goes straight to the approver."""
    scope = current_call.get()
    if scope is not None:
        await scope.settled()


class _Relay:
    """What running calls put into this agent's stream (a subagent's events), and how far its consumer took
    them: taken means the consumer came back for the next event, so it has handled (drawn) this one."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
        self._put = 0
        self._taken = 0
        self._closed = False
        self._moved = asyncio.Event()

    @classmethod
    def unforwarded(cls) -> _Relay:
        """For a call whose events nobody reads (a re-run outside the sandbox): nothing is waited for."""
        relay = cls()
        relay._close()
        return relay

    def put(self, ev: AgentEvent) -> None:
        self._put += 1
        self._queue.put_nowait(ev)

    async def settled(self) -> None:
        """Return once every event put so far was taken (or nobody will take them: the batch ended)."""
        target = self._put
        while self._taken < target and not self._closed:
            self._moved.clear()
            await self._moved.wait()

    def settled_through(self, outer: CallScope | None) -> Callable[[], Awaitable[None]]:
        """`settled`, then the enclosing call's: a grandchild's events reach the screen through both streams."""

        async def settled() -> None:
            await self.settled()
            if outer is not None:
                await outer.settled()

        return settled

    def _took(self) -> None:
        self._taken += 1
        self._moved.set()

    def _close(self) -> None:
        self._closed = True
        self._moved.set()

    async def forward(self, running: asyncio.Future[Any]) -> AsyncIterator[AgentEvent]:
        """Yield what the running calls put as it comes, until they are all done."""
        try:
            while not running.done():
                getter = asyncio.ensure_future(self._queue.get())
                await asyncio.wait({getter, running}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                    self._took()
                else:
                    getter.cancel()
            while not self._queue.empty():
                yield self._queue.get_nowait()
                self._took()
        finally:
            self._close()


def _with_hook(verdict: Verdict, hook: HookOutcome) -> Verdict:
    """A hook's allow skips the prompt but never a deny; a hook's ask brings the prompt back."""
    if hook.permission == "allow" and verdict.behavior == "ask":
        return Verdict("allow", "hook", reason=hook.reason)
    if hook.permission == "ask" and verdict.behavior == "allow":
        return Verdict("ask", "hook", reason=hook.reason)
    return verdict


def _post_feedback(hook: HookOutcome, failed: bool) -> list[tuple[str, str]]:
    name = "PostToolUseFailure" if failed else "PostToolUse"
    return [(name, text) for text in ([hook.feedback] if hook.feedback else []) + hook.context]


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def _bad_json_message(raw: str) -> str:
    try:
        json.loads(raw)
        problem = "it is not a JSON object"
    except json.JSONDecodeError as err:
        problem = str(err)
    shown = raw if len(raw) <= 200 else raw[:200] + "…"
    return f"Invalid tool arguments: {problem}. Arguments received: {shown!r}. Send the arguments as one JSON object."


def _schema_message(tool: Tool, problems: list[str]) -> str:
    schema = json.dumps(tool.input_schema, separators=(",", ":"))
    return f"Invalid arguments for {tool.name}: " + "; ".join(problems) + f". Expected schema: {schema}"


def _denial_message(tool_name: str, by: str, reason: str | None) -> str:
    if by == "user":
        why = f" Their reason: {reason}" if reason else ""
        return f"The user denied this {tool_name} call.{why} Do not retry it as it was; adjust your approach."
    return reason or f"Permission to use {tool_name} was denied."


def _decision_record(d: PermissionDecision) -> dict[str, Any]:
    return {
        "tool_use_id": d.tool_use_id,
        "tool_name": d.tool_name,
        "input": d.input,
        "behavior": d.behavior,
        "by": d.by,
        "rule": d.rule,
        "reason": d.reason,
        "updated_input": d.updated_input,
    }
