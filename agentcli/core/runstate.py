"""One run's tally: its turns and time, the usage of its own requests and its subagents', the guards checked
after each response (budget, tool calls per turn), and the `RunResult` it ends with."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import field
from typing import Any

from agentcli.core.events import ModelUsage, RunResult
from agentcli.core.options import AgentOptions
from agentcli.errors import AgentCliError, LimitReachedError
from agentcli.llm.messages import ToolUseBlock, Usage
from agentcli.record import record


@record(frozen=False)
class RunState:
    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    api_s: float = 0.0
    usage: Usage = field(default_factory=Usage)
    by_model: dict[str, Usage] = field(default_factory=dict)
    last_text: str = ""
    stop_hook_continues: int = 0
    children: dict[str, ModelUsage] = field(default_factory=dict)  # what subagents used, priced by themselves

    def add(self, model: str, usage: Usage) -> None:
        """A request of this run (a turn, or the summariser's) used `usage` of `model`."""
        self.usage = self.usage + usage
        self.by_model[model] = self.by_model.get(model, Usage()) + usage

    def add_child(self, result: RunResult) -> tuple[Usage, float]:
        """A subagent finished: its usage and cost (priced by its own provider) count for this run; returns what
        it added, for the session's totals."""
        usage, cost = Usage(), 0.0
        for model, mu in result.model_usage.items():
            seen = self.children.get(model)
            self.children[model] = mu if seen is None else ModelUsage(seen.usage + mu.usage,
                                                                      seen.cost_usd + mu.cost_usd, seen.context_window)
            self.usage = self.usage + mu.usage
            usage, cost = usage + mu.usage, cost + mu.cost_usd
        return usage, cost

    def cost(self, cost_fn: Callable[[str, Usage], float]) -> float:
        own = sum(cost_fn(m, u) for m, u in self.by_model.items())
        return own + sum(mu.cost_usd for mu in self.children.values())

    def model_usage(self, options: AgentOptions) -> dict[str, ModelUsage]:
        out = {m: ModelUsage(u, options.cost_fn(m, u), options.context_window_fn(m)) for m, u in self.by_model.items()}
        for m, mu in self.children.items():
            mine = out.get(m)
            out[m] = mu if mine is None else ModelUsage(mine.usage + mu.usage, mine.cost_usd + mu.cost_usd,
                                                        mine.context_window)
        return out

    def limit_after_response(self, options: AgentOptions, calls: list[ToolUseBlock]) -> LimitReachedError | None:
        budget = options.max_budget_usd
        if budget is not None and self.cost(options.cost_fn) >= budget:
            return LimitReachedError(
                f"Reached the budget limit (${budget:.2f})", hint="raise it with --max-budget-usd",
                code="max_budget_usd",
            )
        cap = options.max_tool_calls_per_turn
        if len(calls) > cap:
            return LimitReachedError(
                f"The model asked for {len(calls)} tool calls in one turn; the limit is {cap}",
                hint="raise it with --max-tool-calls-per-turn",
                code="max_tool_calls",
            )
        return None

    def result(self, options: AgentOptions, session_id: str, subtype: str, denials: tuple[dict[str, Any], ...],
               err: AgentCliError | None = None, redact: Callable[[str], str] = str) -> RunResult:
        """`redact`: the session's secrets out of an error's message (a server may echo one back)."""
        final = options.final_output
        message = redact(err.one_line()) if err else None
        return RunResult(
            subtype=subtype,
            is_error=err is not None,
            result=self.last_text if message is None else message,
            session_id=session_id,
            num_turns=self.turns,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            duration_api_ms=int(self.api_s * 1000),
            total_cost_usd=self.cost(options.cost_fn),
            usage=self.usage,
            model_usage=self.model_usage(options),
            permission_denials=denials,
            error_code=err.code if err else None,
            error_message=message,
            exit_status=err.exit_status if err else (3 if denials else 0),
            structured_output=final.value if final and err is None else None,
        )


def subtype_for(err: AgentCliError) -> str:
    if err.code == "structured_output_retries":
        return "error_max_structured_output_retries"
    if isinstance(err, LimitReachedError):
        return {"max_turns": "error_max_turns", "max_budget_usd": "error_max_budget_usd"}.get(
            err.code, "error_during_execution"
        )
    return "error_during_execution"
