"""The hook runner the loop is given (agentcli.core.hooks.Hooks): picks the commands an event runs, runs them in
parallel (identical commands once), and combines what they say."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.events import HookFinished
from agentcli.core.hooks import HookCall, HookOutcome
from agentcli.core.permissions import ApprovalRequest, Approver
from agentcli.hooks.config import HookSpec
from agentcli.hooks.matcher import matches
from agentcli.hooks.output import combine, interpret
from agentcli.hooks.process import Finished, Wrap, run_command
from agentcli.ids import new_uuid

if TYPE_CHECKING:
    from agentcli.sandbox.core import Sandbox


class HookEngine:
    """`env` is the environment hook commands get (already without provider keys); `redact` cleans what a hook
    printed before it is shown, stored or sent to the model; `wrap` runs each command in the session's sandbox
    (`sandbox_hooks = true`; by default hooks run as the user, as Claude Code runs them). A command that runs a
    project file not pinned as trusted (agentcli.hooks.scripts) is asked about through `approver` when someone
    can answer, and otherwise not run, with a notice."""

    def __init__(
        self,
        specs: list[HookSpec],
        *,
        project_dir: Path,
        cwd: Path,
        env: dict[str, str],
        transcript_path: str | None = None,
        redact: Callable[[str], str] = lambda text: text,
        wrap: Wrap | None = None,
        approver: Approver | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.specs = specs
        self.project_dir = project_dir
        self.cwd = cwd
        self.env = env
        self.transcript_path = transcript_path
        self.redact = redact
        self.wrap = wrap
        self.sandbox = sandbox  # the session's, when hooks run confined (`sandbox_hooks`); `wrap` is then its own
        self.approver = approver
        self._asking = asyncio.Lock()  # hooks of one event run in parallel; their questions come one at a time
        self._by_event: dict[str, list[HookSpec]] = {}
        for spec in specs:
            self._by_event.setdefault(spec.event, []).append(spec)

    def select(self, event: str, target: str | None) -> list[HookCall]:
        calls: list[HookCall] = []
        seen: set[str] = set()
        name = f"{event}:{target}" if target else event
        for spec in self._by_event.get(event, ()):
            if spec.command in seen or not matches(spec.matcher, target):
                continue
            seen.add(spec.command)
            calls.append(HookCall(new_uuid(), event, name, spec.command, spec.timeout_s))
        return calls

    async def run(self, calls: list[HookCall], payload: dict[str, Any]) -> HookOutcome:
        data = {"cwd": str(self.cwd), "transcript_path": self.transcript_path, **payload}
        stdin = json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
        wrap, confined, said = await self._confinement()
        done = await asyncio.gather(*(self._one(c, stdin, wrap, confined) for c in calls))
        total = combine(done)
        total.messages = [*said, *total.messages, *self._sandbox_told()]
        return total

    async def _confinement(self) -> tuple[Wrap | None, bool, list[str]]:
        """What runs this event's hooks, whether it confines them, and what the user must hear about it (once).
        A session sandbox that does not work here (its probe, run now if no command ran yet), or runs in
        `danger-full-access`, confines nothing: a project script the hooks run must then be trusted again, as
        without `sandbox_hooks`."""
        if self.sandbox is None:
            return self.wrap, self.wrap is not None, []
        confined = await asyncio.to_thread(self.sandbox.ready)
        return self.sandbox.wrap, confined, self._sandbox_told()

    def _sandbox_told(self) -> list[str]:
        told = self.sandbox.take_notice() if self.sandbox is not None else None
        return [told] if told else []

    async def _one(self, call: HookCall, stdin: bytes, wrap: Wrap | None, confined: bool) -> HookOutcome:
        refused = await self._untrusted(call, confined)
        if refused is not None:
            out = HookOutcome(messages=[f"{call.name} hook was not run: {refused}"])
            out.runs.append(HookFinished(call.hook_id, call.event, call.name, call.command, None, "", refused,
                                         "error", 0))
            return out
        try:
            finished = await run_command(call.command, stdin, self.project_dir, self.env, call.timeout_s, wrap)
        except OSError as err:
            finished = Finished(127, "", f"could not start the hook: {err}", 0)
        if not finished.started and not finished.timed_out:  # the sandbox refused it: never a success
            return await self._refused(call, finished)
        finished = Finished(finished.exit_code, self.redact(finished.stdout), self.redact(finished.stderr),
                            finished.duration_ms, finished.timed_out)
        label, outcome = interpret(call.event, call.name, finished)
        outcome.runs.append(HookFinished(call.hook_id, call.event, call.name, call.command, finished.exit_code,
                                         finished.stdout, finished.stderr, label, finished.duration_ms))
        return outcome

    async def _refused(self, call: HookCall, finished: Finished) -> HookOutcome:
        """A confined hook whose sandbox gave up before it ran. A remembered "the sandbox works" may be stale
        (agentcli.sandbox.verdict): the session probes again, as the Bash tool does, and says what it found."""
        if self.sandbox is not None:
            await asyncio.to_thread(self.sandbox.recheck)
        why = self.redact(finished.stderr.strip().splitlines()[-1] if finished.stderr.strip() else "no output")
        text = f"the sandbox did not start it ({why})"
        out = HookOutcome(messages=[f"{call.name} hook was not run: {text}"])
        out.runs.append(HookFinished(call.hook_id, call.event, call.name, call.command, finished.exit_code, "",
                                     text, "error", finished.duration_ms))
        return out

    async def _untrusted(self, call: HookCall, confined: bool) -> str | None:
        """Why `call` may not run (a project file it runs is not the one the user trusted), or None. A hook
        confined like Bash (`sandbox_hooks = true`, a sandbox that works) can do no more than the model's own
        commands: not checked."""
        if confined:
            return None
        from agentcli.hooks.scripts import project_files
        from agentcli.settings import trust

        root = self.project_dir
        changed = [f for f in project_files(call.command, root, self.env) if not trust.script_pinned(root, f)]
        if not changed:
            return None
        names = ", ".join(trust.printable(str(f.relative_to(root))) for f in changed)
        if self.approver is None or not getattr(self.approver, "interactive", False):
            return (f"it runs {names} from the project, which changed since you trusted it (or was never "
                    f"trusted); read it, then: agentcli hooks trust")
        async with self._asking:
            answer = await self.approver.approve(ApprovalRequest(
                call.hook_id, "Hook", {"command": call.command, "files": names}, read_only=False,
                reason=f"The {call.name} hook runs {names} from the project, changed since you trusted it (or "
                       f"never trusted). Run it as it is now, as you, outside the sandbox?"))
        if answer.behavior != "allow" or answer.updated_input is not None:  # a hook is not edited at a question
            return f"you did not trust {names} as it is now"
        trust.pin(root, changed)
        return None
