"""The results a front end gets when the agent loop could not give its own: a session that failed to start, a
turn stopped by the user or a signal, a compaction run as a turn. Made here and nowhere else."""

from __future__ import annotations

import signal
import time
from dataclasses import field

from agentcli.core.events import AgentEvent, AssistantMessage, RunResult, TurnStarted
from agentcli.core.interrupts import INTERRUPTED
from agentcli.llm.messages import Usage
from agentcli.record import record


@record(frozen=False)
class Tally:
    """What a turn has done so far, as its events showed it: the interrupted result reports it (the loop's own
    tally ends with the run it would have finished)."""

    cost_before: float
    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    usage: Usage = field(default_factory=Usage)

    def feed(self, ev: AgentEvent) -> None:
        # subagents' events come wrapped (SubagentEvent): only the main agent's turns and replies count here
        if type(ev) is TurnStarted:
            self.turns = ev.turn
        elif type(ev) is AssistantMessage:
            self.usage = self.usage + ev.usage

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)


@record
class Stop:
    """Why a turn is being stopped: the result's error code and message, and its exit status."""

    code: str
    message: str
    exit_status: int


STOPPED = ("interrupted", "terminated")  # the error codes of a stopped turn's result


def is_stopped(result: RunResult) -> bool:
    """The run was stopped (the user's interrupt, a signal), not failed."""
    return result.is_error and result.error_code in STOPPED


def stop_for(sig: int | None) -> Stop:
    """The user's interrupt (Esc, the SDK's `interrupt`): Claude Code's marker text; a signal: `interrupted`
    (SIGINT) or `terminated`, exit status 128+N."""
    if sig is None:
        return Stop("interrupted", INTERRUPTED, 128 + signal.SIGINT)
    name = signal.Signals(sig).name
    return Stop("interrupted" if sig == signal.SIGINT else "terminated", f"run stopped by {name}", 128 + sig)


def failed_result(session_id: str, code: str, message: str, exit_status: int) -> RunResult:
    """The result of a run that could not even start (bad config, no provider) or of a refused input."""
    return RunResult(
        subtype="error_during_execution", is_error=True, result=message, session_id=session_id, num_turns=0,
        duration_ms=0, duration_api_ms=0, total_cost_usd=0.0, usage=Usage(), error_code=code,
        error_message=message, exit_status=exit_status,
    )


def stopped_result(tally: Tally, session_id: str, total_cost_usd: float, stop: Stop) -> RunResult:
    """Claude Code's shape for an interrupted turn: error_during_execution, is_error, with what the turn did
    before it was stopped (its turns, time, usage and cost)."""
    return RunResult(
        subtype="error_during_execution", is_error=True, result=stop.message, session_id=session_id,
        num_turns=tally.turns, duration_ms=tally.elapsed_ms(), duration_api_ms=0,
        total_cost_usd=total_cost_usd - tally.cost_before, usage=tally.usage, error_code=stop.code,
        error_message=stop.message, exit_status=stop.exit_status,
    )


def compacted_result(tally: Tally, session_id: str, total_cost_usd: float) -> RunResult:
    """`/compact` run as a turn (the SDK's sessions): a success with no reply of its own."""
    return RunResult(
        subtype="success", is_error=False, result="", session_id=session_id, num_turns=0,
        duration_ms=tally.elapsed_ms(), duration_api_ms=0, total_cost_usd=total_cost_usd - tally.cost_before,
        usage=Usage(),
    )
